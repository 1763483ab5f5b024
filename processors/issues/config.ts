import { z } from 'zod';

/** The `issues` processor's YAML section: it has no settings yet. */
export const issuesConfigSchema = z.object({}).strict();

export type IssuesConfig = z.output<typeof issuesConfigSchema>;
