// Whether an uptime check may target a URL, judged when the monitor is created or changed, with the
// same guard as alert webhooks (src/net/destinations.ts): a non-public literal address,
// `localhost`, or a name that resolves to a non-public address is refused unless
// allow_private_destinations is set. Each check is judged again on the address it connects to
// (probe.ts), so a name that changes what it resolves to is caught there.
import type { DestinationGuard } from '../../src/net/destinations.js';

export async function destinationProblem(url: URL, guard: DestinationGuard): Promise<string | undefined> {
  const refusal = await guard.refusal(url);
  if (!refusal) return undefined;
  return `${url.hostname} is not a public destination (refused unless monitors.allow_private_destinations is true)`;
}
