/** A 16-byte id in its only wire form: 32 lowercase hex characters (tenant, user, conversation, message ids). */
export type Id128 = string;
