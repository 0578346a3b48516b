import type { HistoryAuthorizer, Id128, MembershipDirectory, Viewer } from '@qim/store-core';

/** History access = current membership of the conversation (in the viewer's tenant). */
export class MembershipAuthorizer implements HistoryAuthorizer {
  constructor(private readonly membership: MembershipDirectory) {}

  canReadHistory(viewer: Viewer, conversationId: Id128): Promise<boolean> {
    return this.membership.isMember(viewer.tenantId, conversationId, viewer.userId);
  }
}
