/** JSON read at the edge: what a parsed value must be before it is used. */
import { z } from 'zod';

/** A JSON object (not an array, not null): its members by name, each still to be read. */
export const JSON_OBJECT = z.record(z.string(), z.unknown());
