"""Send -> visible against the offered rate, over several tools/bench/e2e results (one fixed-rate
phase each, e.g. the same command at 250, 300, ... msg/s):
sweep.py <chart.png> <result.json>...

Left panel: each run's p99 over all its messages and over the messages clear of Redis background
saves (AOF rewrites), and its p50, by offered rate; the 100 ms target is marked. Right panel: the
machine's busy CPU (% of one core; two cores = 200 %) and the Redis latency monitor's summed stalls
(ms) per run, by offered rate.
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def points(paths):
    out = []
    for path in paths:
        with open(path) as f:
            result = json.load(f)
        for p in result["phases"]:
            if p.get("offeredPerSecond") is None:
                continue
            clear = p.get("visibleOutsideRedisForks") or p["visible"]
            stalls = sum(e["sumMs"] for e in (p.get("redisLatency") or []))
            out.append(
                (p["offeredPerSecond"], p["visible"]["p50"], p["visible"]["p99"], clear["p99"], p["machineCorePercent"], stalls, p.get("redisForks") or 0)
            )
    if not out:
        sys.exit("sweep.py: no fixed-rate phase in the results")
    return sorted(out)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    pts = points(sys.argv[2:])
    rate = [p[0] for p in pts]
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.8))
    a.scatter(rate, [p[2] for p in pts], marker="o", color="tab:red", label="p99, all messages")
    a.scatter(rate, [p[3] for p in pts], marker="s", facecolors="none", edgecolors="tab:blue", s=60, label="p99, clear of Redis AOF rewrites (±500 ms)")
    a.scatter(rate, [p[1] for p in pts], marker="^", color="tab:green", label="p50, all messages")
    for p in pts:
        if p[6] > 0:
            a.annotate(f"{p[6]} rewrite{'s' if p[6] > 1 else ''}", (p[0], p[2]), textcoords="offset points", xytext=(6, 0), fontsize=7, color="tab:red")
    a.axhline(100, color="grey", linestyle="--", linewidth=1)
    a.text(min(rate), 104, "target p99 100 ms", fontsize=8, color="grey")
    a.set_yscale("log")
    a.set_xlabel("offered msg/s (3-member conversations, 16 long-polling devices)")
    a.set_ylabel("send -> visible, ms (log)")
    a.set_title("delivery latency by offered rate")
    a.legend(fontsize=8, loc="upper left")
    b.scatter(rate, [p[4] for p in pts], color="tab:purple", label="machine busy CPU, % of one core")
    b.axhline(200, color="grey", linestyle=":", linewidth=1)
    b.set_ylim(0, 210)
    b.set_xlabel("offered msg/s")
    b.set_ylabel("% of one core (2 cores = 200 %)")
    b2 = b.twinx()
    b2.scatter(rate, [p[5] for p in pts], color="tab:orange", marker="x", label="Redis latency monitor: summed stalls, ms")
    b2.set_ylabel("ms per phase")
    b2.set_ylim(0, max(250, max(p[5] for p in pts) * 1.2))
    h1, l1 = b.get_legend_handles_labels()
    h2, l2 = b2.get_legend_handles_labels()
    b.legend(h1 + h2, l1 + l2, fontsize=8, loc="lower right")
    b.set_title("what the machine and Redis did")
    fig.tight_layout()
    fig.savefig(sys.argv[1], dpi=110)
    print(f"wrote {sys.argv[1]} ({len(pts)} phases)")


if __name__ == "__main__":
    main()
