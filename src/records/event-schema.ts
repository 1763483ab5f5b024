// TEMPORARY: replaced when the schema moves here from processors/validation.
import { z } from 'zod';
import { errorEventInputSchema } from '../../processors/validation/schema.js';
export const errorEventJsonSchema = z.toJSONSchema(errorEventInputSchema, { io: 'input' }) as Record<string, unknown>;
