import { id128, u64 } from '@qim/wire';
import { z } from 'zod';

export const conversationParams = z.object({ id: id128.describe('conversation id') }).strict();

export const historyQuerySchema = z
  .object({
    direction: z.enum(['older', 'newer']).default('older'),
    anchor: u64.optional().describe('exclusive seq to page from; absent = the newest (older) or the oldest (newer)'),
    max_items: z.coerce.number().int().min(1).max(1000).default(50),
    max_bytes: z.coerce
      .number()
      .int()
      .min(1)
      .max(16 * 1024 * 1024)
      .default(1024 * 1024),
  })
  .strict();

export const summariesBodySchema = z
  .object({
    conversations: z
      .array(z.object({ conversation_id: id128, read_seq: u64.optional() }).strict())
      .min(1)
      .max(200),
  })
  .strict();

export const membersBodySchema = z.object({ members: z.array(id128).min(1).max(10_000) }).strict();
