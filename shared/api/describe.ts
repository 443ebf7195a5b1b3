import * as z from 'zod/mini';

/** Attaches a description that the OpenAPI document shows (zod/mini has no `.meta()`). */
export const described = <S extends z.core.$ZodType>(schema: S, description: string): S => {
  z.globalRegistry.add(schema, { description });
  return schema;
};
