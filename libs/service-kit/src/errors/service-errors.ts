import { StoreError } from '@qim/store-core';

/** The caller presented no or a wrong bearer token. */
export class UnauthorizedError extends StoreError {
  readonly code = 'UNAUTHORIZED' as const;
}
/** The writer lost its writer-id lease: it must not issue message ids until it holds one again. */
export class LeaseLostError extends StoreError {
  readonly code = 'UNAVAILABLE' as const;
}
/** No route matches the request. */
export class RouteNotFoundError extends StoreError {
  readonly code = 'NOT_FOUND' as const;
}
/** A batch of sends with more items than the writer takes in one request (`QIM_SEND_BATCH_MAX`): refused whole, nothing sent. */
export class BatchTooLargeError extends StoreError {
  readonly code = 'BATCH_TOO_LARGE' as const;
}
