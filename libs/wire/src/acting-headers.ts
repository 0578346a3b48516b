import { z } from 'zod';
import { id128 } from './fields';

export const TENANT_HEADER = 'x-qim-tenant';
export const USER_HEADER = 'x-qim-user';

/**
 * Headers of a route that acts on a tenant (`x-qim-tenant`). Other headers pass through untouched
 * (the schema replaces the request's headers with its result).
 */
export const tenantHeaders = z.looseObject({ [TENANT_HEADER]: id128.describe('the acting tenant') });

/** Headers of a route that acts as a user of a tenant (`x-qim-tenant`, `x-qim-user`). */
export const actingHeaders = z.looseObject({
  [TENANT_HEADER]: id128.describe('the acting tenant'),
  [USER_HEADER]: id128.describe('the acting user'),
});
