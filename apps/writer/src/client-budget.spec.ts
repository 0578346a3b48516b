import { DEFAULT_SEND_TIMEOUT_MS } from '@qim/client';
import { parseServiceEnv } from '@qim/backends';
import { writerEnvSchema } from '@qim/writer-runtime';

/**
 * The client's default bound of one send attempt must outlast the longest a writer with default
 * settings takes to answer (admission wait, then the send deadline), or the client gives up just
 * before the writer's explanatory 503 (issue 28, item 13). Raising either default fails here.
 */
describe('the client send budget against the writer defaults', () => {
  it('DEFAULT_SEND_TIMEOUT_MS > QIM_ADMISSION_WAIT_MS + QIM_SEND_DEADLINE_MS (defaults), with a margin of at least 2 s', () => {
    const c = parseServiceEnv(writerEnvSchema, {
      QIM_SERVICE_TOKEN: 'budget-check-token-0123',
      QIM_KAFKA_BROKERS: '127.0.0.1:9092',
      QIM_REDIS_URL: 'redis://127.0.0.1:6379',
    });
    expect(c.admission).not.toBeNull();
    const admissionWaitMs = c.admission?.waitMs ?? 0;
    expect(DEFAULT_SEND_TIMEOUT_MS - (admissionWaitMs + c.sendDeadlineMs)).toBeGreaterThanOrEqual(2_000);
  });
});
