// Which project a request is about, and whether its key may reach it. Project keys reach their
// one project (naming another is 403); organization keys reach every project of their
// organization and default to its default project. A project outside the key's organization is
// 404, never 403, so ids of other tenants do not leak.
import type { Principal } from './authenticator.js';
import type { Tenant } from '../engine/item.js';
import { errors } from '../http/errors.js';
import type { ProjectDirectory, ProjectRef } from './directory.js';

export async function resolveProject<P extends ProjectRef>(catalog: ProjectDirectory<P>, principal: Principal, requested: string | undefined): Promise<P> {
  if (principal.projectId) {
    if (requested !== undefined && requested !== principal.projectId)
      throw errors.forbidden(`this key is for project ${principal.projectId} and cannot reach project ${requested}`);
    const project = await catalog.project(principal.projectId);
    if (!project) throw errors.notFound(`project ${principal.projectId} does not exist`);
    return project;
  }
  const id = requested ?? (await catalog.organizations()).find((o) => o.id === principal.orgId)?.default_project_id ?? undefined;
  if (!id) throw errors.invalidParameter('project_id', 'is required: the organization has no default project');
  const project = await catalog.project(id);
  if (!project || project.org_id !== principal.orgId) throw errors.notFound(`project ${id} does not exist`);
  return project;
}

/** Every project the key reaches. */
export async function reachableProjects<P extends ProjectRef>(catalog: ProjectDirectory<P>, principal: Principal): Promise<P[]> {
  if (principal.projectId) {
    const project = await catalog.project(principal.projectId);
    return project ? [project] : [];
  }
  return catalog.listProjects(principal.orgId);
}

/** The projects a read looks in: the one it names, else every project the key reaches. */
export async function readProjects<P extends ProjectRef>(catalog: ProjectDirectory<P>, principal: Principal, requested: string | undefined): Promise<P[]> {
  return requested ? [await resolveProject(catalog, principal, requested)] : reachableProjects(catalog, principal);
}

export function tenantOf(principal: Principal, project: ProjectRef): Tenant {
  return { orgId: project.org_id, projectId: project.id, dataset: principal.dataset };
}
