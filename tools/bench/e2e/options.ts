/** Command-line options of the end-to-end benchmark (see README.md). */
export interface BenchOptions {
  readonly writerUrl: string;
  readonly mailboxUrl: string;
  readonly token: string;
  /** Conversation sizes (members), one scenario each, in order. */
  readonly sizes: readonly number[];
  /** Offered send rate (msg/s) of the fixed-rate phase, per size. */
  readonly rates: ReadonlyMap<number, number>;
  /** Conversations per size. */
  readonly conversations: ReadonlyMap<number, number>;
  /** Sends in flight in the saturation phase. */
  readonly saturation: number;
  /**
   * 0: each send is one `POST /v1/messages`; N ≥ 1: sends go in batches of N (`sendMany`, one
   * `POST /v1/messages/batch` each), ceil(saturation / N) batches in flight, the fixed rate in batches.
   */
  readonly batch: number;
  readonly phases: readonly ('fixed' | 'saturation')[];
  /** Length of each phase's sending window (s). */
  readonly seconds: number;
  /** After sending stops, how long to wait for the last messages to become visible (s). */
  readonly drainSeconds: number;
  /** Upper bound on sends per phase (the count bound; the time bound is `seconds`). */
  readonly maxSends: number;
  readonly payloadBytes: number;
  /** Long-poll `wait_ms` of the devices. */
  readonly waitMs: number;
  /** Devices sync by a streamed response each (`--stream`). */
  readonly stream: boolean;
  /** Interval of the short-polling fallback (also forced with --poll-ms). */
  readonly pollMs: number;
  readonly forceShortPoll: boolean;
  /** Users with a syncing device per size: the first N of the population (conversation order); null = every member. */
  readonly devices: number | null;
  /** The client over Node's fetch instead of its default node:http transport (to compare their CPU). */
  readonly fetch: boolean;
  readonly baselineSeconds: number;
  /** Quiet window before each size's phases (devices long-polling, no sends): the idle CPU rate subtracted per message. */
  readonly idleSeconds: number;
  /** Unrecorded saturation sending before the first size's idle window and phases (JIT, pools, caches). */
  readonly warmupSeconds: number;
  readonly out: string;
  readonly start: boolean;
  readonly keepStack: boolean;
  readonly plot: boolean;
  /** Free text recorded in the result and the chart (e.g. which build the services run). */
  readonly note: string;
  /** `--mixed`: only the mixed phase (a flooder of huge conversations beside a light sender; mixed.ts). */
  readonly mixed: {
    readonly heavy: { members: number; conversations: number; devices: number };
    readonly light: { members: number; conversations: number; rate: number };
  } | null;
}

const USAGE = `usage: tools/bench/run.sh e2e [options]
  --sizes 2,3,20,1000        conversation sizes (members), one scenario each
  --rate 2=500,3=500,20=100,1000=2   offered msg/s of the fixed-rate phase per size
  --conversations 2=100,3=100,20=10,1000=1
  --saturation 64            sends in flight in the saturation phase
  --batch 0                  0: one POST /v1/messages per send; N: batches of N sends (POST /v1/messages/batch,
                             sendMany), saturation/N batches in flight (at least 1), the fixed rate as batches
  --phases fixed,saturation  which phases to run
  --seconds 5                sending window per phase
  --drain 10                 after the window: max wait for the last answers and visibility
                             (a phase lasts at most seconds + drain; later sends are abandoned)
  --max-sends 20000          count bound per phase
  --payload 100              message body bytes
  --wait-ms 10000            device long-poll wait
  --poll-ms 100              short-poll interval (fallback when the server has no wait_ms)
  --short-poll               force short polling (an aggressive device population with --poll-ms 10)
  --stream                   devices sync by one streamed response each (GET …/stream, server-sent pages)
                             instead of a long poll per page; sync req/s then counts pages
  --devices all              syncing devices per size: all (one per member) or N (the members of the
                             first conversations, N in all); send → visible is measured for those
                             members, applied/s for every message (the mailbox's entries written)
  --fetch                    the client over Node's fetch instead of node:http (compare the bench-client CPU)
  --baseline-seconds 3       raw kafkajs produce→consume per size and phase (0 = skip)
  --idle-seconds 3           quiet window before each size's phases: each process's idle CPU rate,
                             subtracted in the CPU µs per message table (0 = skip)
  --warmup-seconds 5         unrecorded saturation sending before the first size's phases, so the
                             first recorded phase does not measure the services' JIT warm-up (0 = skip)
  --out <file.json>          result file (default .infra/bench/e2e-<time>.json; the PNG beside it)
  --no-start                 fail instead of starting the stack with tools/scenario/qim-local up
  --keep-stack               leave a stack this run started running
  --no-plot                  no PNG
  --note <text>              recorded in the result and the chart title (e.g. which build runs)
  --mixed                    only the mixed phase (issue 28 item 4): one tenant floods huge conversations at
                             saturation (--saturation in flight) while another sends to small ones at a fixed
                             rate, both for --seconds; per sender: accepted, refused (503/429), send and
                             send → visible latency; the writer's admission gate sampled every 250 ms
  --mixed-heavy 10000x2      the flooder's conversations: members x count
  --mixed-heavy-devices 20   syncing devices among the flooder's members (send → visible measured for them)
  --mixed-light 3x20@20      the light sender: members x conversations @ msg/s (every member has a device)`;

const DEFAULT_RATES: [number, number][] = [
  [2, 500],
  [3, 500],
  [20, 100],
  [1000, 2],
];
const DEFAULT_CONVERSATIONS: [number, number][] = [
  [2, 100],
  [3, 100],
  [20, 10],
  [1000, 1],
];

export function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv, stamp: string): BenchOptions {
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-h' || a === '--help') fail('');
    if (!a.startsWith('--')) fail(`unexpected argument ${a}`);
    const name = a.slice(2);
    if (['short-poll', 'stream', 'fetch', 'no-start', 'keep-stack', 'no-plot', 'mixed'].includes(name)) flags.set(name, 'true');
    else if (i + 1 < argv.length) flags.set(name, argv[++i]!);
    else fail(`${a} needs a value`);
  }
  const known = [
    'sizes',
    'rate',
    'conversations',
    'saturation',
    'batch',
    'phases',
    'seconds',
    'drain',
    'max-sends',
    'payload',
    'wait-ms',
    'poll-ms',
    'short-poll',
    'stream',
    'devices',
    'fetch',
    'baseline-seconds',
    'idle-seconds',
    'warmup-seconds',
    'out',
    'no-start',
    'keep-stack',
    'no-plot',
    'note',
    'mixed',
    'mixed-heavy',
    'mixed-heavy-devices',
    'mixed-light',
  ];
  for (const k of flags.keys()) if (!known.includes(k)) fail(`unknown option --${k}`);
  const num = (k: string, d: number, min: number, max: number): number => {
    const v = flags.has(k) ? Number(flags.get(k)) : d;
    if (!Number.isFinite(v) || v < min || v > max) fail(`--${k} must be a number in ${min}…${max}`);
    return v;
  };
  const sizes = (flags.get('sizes') ?? '2,3,20,1000').split(',').map(Number);
  if (sizes.some((s) => !Number.isInteger(s) || s < 2 || s > 10_000)) fail('--sizes: integers in 2…10000');
  const phases = (flags.get('phases') ?? 'fixed,saturation').split(',');
  if (phases.some((p) => p !== 'fixed' && p !== 'saturation')) fail('--phases: fixed and/or saturation');
  return {
    writerUrl: env['WRITER_URL'] ?? 'http://127.0.0.1:18080',
    mailboxUrl: env['MAILBOX_URL'] ?? 'http://127.0.0.1:18081',
    token: env['QIM_SERVICE_TOKEN'] ?? 'local-dev-token-0123456789abcdef',
    sizes,
    rates: perSize(flags.get('rate'), DEFAULT_RATES, sizes, 'rate'),
    conversations: perSize(flags.get('conversations'), DEFAULT_CONVERSATIONS, sizes, 'conversations'),
    saturation: num('saturation', 64, 1, 1024),
    batch: num('batch', 0, 0, 10_000),
    phases: phases as ('fixed' | 'saturation')[],
    seconds: num('seconds', 5, 1, 600),
    drainSeconds: num('drain', 10, 0, 600),
    maxSends: num('max-sends', 20_000, 1, 1_000_000),
    payloadBytes: num('payload', 100, 1, 65_536),
    waitMs: num('wait-ms', 10_000, 1, 300_000),
    pollMs: num('poll-ms', 100, 1, 60_000),
    forceShortPoll: flags.has('short-poll'),
    stream: flags.has('stream'),
    devices: (flags.get('devices') ?? 'all') === 'all' ? null : num('devices', 0, 1, 1_000_000),
    fetch: flags.has('fetch'),
    baselineSeconds: num('baseline-seconds', 3, 0, 600),
    idleSeconds: num('idle-seconds', 3, 0, 600),
    warmupSeconds: num('warmup-seconds', 5, 0, 600),
    out: flags.get('out') ?? `.infra/bench/e2e-${stamp}.json`,
    start: !flags.has('no-start'),
    keepStack: flags.has('keep-stack'),
    plot: !flags.has('no-plot'),
    note: flags.get('note') ?? '',
    mixed: flags.has('mixed') ? mixedOf(flags, num) : null,
  };
}

function mixedOf(flags: ReadonlyMap<string, string>, num: (k: string, d: number, min: number, max: number) => number): NonNullable<BenchOptions['mixed']> {
  const heavy = /^(\d+)x(\d+)$/.exec(flags.get('mixed-heavy') ?? '10000x2');
  const light = /^(\d+)x(\d+)@(\d+(?:\.\d+)?)$/.exec(flags.get('mixed-light') ?? '3x20@20');
  if (!heavy) fail('--mixed-heavy: <members>x<conversations>, e.g. 10000x2');
  if (!light) fail('--mixed-light: <members>x<conversations>@<msg/s>, e.g. 3x20@20');
  const [hm, hc, lm, lc, rate] = [Number(heavy[1]), Number(heavy[2]), Number(light[1]), Number(light[2]), Number(light[3])];
  if (hm < 2 || hm > 10_000 || lm < 2 || lm > 10_000 || hc < 1 || lc < 1 || rate <= 0)
    fail('--mixed-heavy/--mixed-light: members in 2…10000, at least one conversation, a positive rate');
  const devices = Math.min(num('mixed-heavy-devices', 20, 1, 10_000), hm * hc);
  return { heavy: { members: hm, conversations: hc, devices }, light: { members: lm, conversations: lc, rate } };
}

function perSize(arg: string | undefined, defaults: [number, number][], sizes: readonly number[], what: string): Map<number, number> {
  const m = new Map(defaults);
  for (const part of arg ? arg.split(',') : []) {
    const [k, v] = part.split('=').map(Number);
    if (!Number.isInteger(k) || !Number.isFinite(v) || v! <= 0) fail(`--${what}: size=value pairs, e.g. 3=500`);
    m.set(k!, v!);
  }
  for (const s of sizes) if (!m.has(s)) fail(`--${what} has no value for size ${s}`);
  return m;
}

function fail(msg: string): never {
  if (msg) process.stderr.write(`${msg}\n`);
  process.stderr.write(`${USAGE}\n`);
  process.exit(2);
}
