import { forksDuring, parseRedisForks, saveInProgress } from './redis-forks';

const info = (forks: number, aof: 0 | 1, rdb: 0 | 1 = 0): string =>
  [
    '# Persistence',
    `rdb_bgsave_in_progress:${rdb}`,
    `aof_rewrite_in_progress:${aof}`,
    'aof_rewrites:10',
    '',
    '# Stats',
    `total_forks:${forks}`,
    'latest_fork_usec:40305',
  ].join('\r\n');

describe("Redis's background saves around a phase", () => {
  it('counts the forks started during the phase and one already running at its start', () => {
    expect(forksDuring(parseRedisForks(info(10, 0)), parseRedisForks(info(10, 0)))).toBe(0);
    expect(forksDuring(parseRedisForks(info(10, 0)), parseRedisForks(info(12, 1)))).toBe(2);
    expect(forksDuring(parseRedisForks(info(10, 1)), parseRedisForks(info(10, 0)))).toBe(1);
    expect(parseRedisForks(info(3, 0, 1)).inProgress).toBe(true);
  });

  it('fails loudly on INFO without the counters, and on a counter that went down', () => {
    expect(() => parseRedisForks('# Persistence\r\naof_rewrite_in_progress:0')).toThrow('no total_forks');
    expect(() => forksDuring(parseRedisForks(info(10, 0)), parseRedisForks(info(2, 0)))).toThrow('went down');
  });
});

describe('a background save running, from INFO persistence', () => {
  it('is an AOF rewrite or an RDB save in progress', () => {
    expect(saveInProgress(info(1, 0))).toBe(false);
    expect(saveInProgress(info(1, 1))).toBe(true);
    expect(saveInProgress(info(1, 0, 1))).toBe(true);
  });

  it('fails loudly when a flag is missing', () => {
    expect(() => saveInProgress('# Persistence\r\naof_rewrite_in_progress:0')).toThrow('no rdb_bgsave_in_progress');
  });
});
