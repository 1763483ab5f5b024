import { z } from 'zod';

/** The `exceptions` connector's YAML section: nothing to set yet (`exceptions: {}`). */
export const exceptionsConfigSchema = z.object({}).strict();

export type ExceptionsConfig = z.infer<typeof exceptionsConfigSchema>;
