import type { Id128 } from '@qim/store-core';
import { InvalidInputError, isId128 } from '@qim/store-core';
import type { FastifyRequest } from 'fastify';

export const TENANT_HEADER = 'x-qim-tenant';
export const USER_HEADER = 'x-qim-user';

/** The caller on whose behalf a request acts. Trusted only because the bearer token was valid. */
export interface ActingIdentity {
  readonly tenantId: Id128;
  readonly userId: Id128;
}

function header(request: FastifyRequest, name: string): Id128 {
  const v = request.headers[name];
  if (typeof v !== 'string' || !isId128(v)) {
    throw new InvalidInputError(`header ${name} must be 32 lowercase hex characters`);
  }
  return v;
}

/** The acting tenant (`x-qim-tenant`), for routes that act on a tenant but not as a user. */
export function actingTenant(request: FastifyRequest): Id128 {
  return header(request, TENANT_HEADER);
}

/** The acting tenant and user (`x-qim-tenant`, `x-qim-user`); missing or malformed → INVALID_INPUT. */
export function actingIdentity(request: FastifyRequest): ActingIdentity {
  return { tenantId: header(request, TENANT_HEADER), userId: header(request, USER_HEADER) };
}
