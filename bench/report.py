"""The benchmark's result: one JSON-ready object, and the table printed for people."""

from . import stats

#: A send this late (ms) means the load generator itself was held up.
LAG_WARNING_MS = 20
PHASES = ("app", "floor_http", "floor_channels", "floor_websockets")
FLOOR_SHORT = {"floor_http": "http", "floor_channels": "channels", "floor_websockets": "websockets"}
COLUMNS = [
    ("p50_ms", "p50 ms"),
    ("p99_ms", "p99 ms"),
    ("max_ms", "max ms"),
    ("rolls_per_s", "rolls/s"),
    ("lost", "lost"),
    ("duplicated", "dup"),
    ("errors", "errors"),
    ("cpu_s", "cpu s"),
    ("cpu_pct", "cpu %"),
    ("cpu_ms_per_roll", "ms/roll"),
    ("pg_cpu_ms_per_roll", "pg ms/r"),
    ("redis_cpu_ms_per_roll", "rds ms/r"),
    ("rss_peak_mb", "rss MB"),
    ("send_lag_max_ms", "lag ms"),
]


def result(config, phases):
    """{config, app, floor_*, app_over_<floor>_p99, app_over_<floor>_p50}."""
    out = {"config": config, **phases}
    app = phases["app"]
    for name, short in FLOOR_SHORT.items():
        if name in phases:
            for q in ("p99", "p50"):
                out[f"app_over_{short}_{q}"] = stats.ratio(app[f"{q}_ms"], phases[name][f"{q}_ms"])
    return out


def _cell(value):
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.1f}"
    return str(value)


def table(out):
    config = out["config"]
    lines = [
        "bench_rolls: {rooms} rooms x {clients} clients, {rate} rolls/s for {seconds} s, "
        "{sends} rolls, server core {cpu}, database {database}, channel layer {layer}, "
        "load average {loadavg_1m}".format(**config),
        f"{'phase':<18}" + "".join(f"{label:>9}" for _, label in COLUMNS),
    ]
    for name in PHASES:
        if name in out:
            row = out[name]
            lines.append(f"{name:<18}" + "".join(f"{_cell(row.get(k)):>9}" for k, _ in COLUMNS))
    ratios = [
        f"{short} {out[f'app_over_{short}_p99']}x"
        for short in FLOOR_SHORT.values()
        if out.get(f"app_over_{short}_p99") is not None
    ]
    if ratios:
        lines.append("app p99 over floor p99: " + ", ".join(ratios))
    lines.append(f"floor payload: {_cell(out['app'].get('payload_bytes'))} bytes")
    lag = max(out[name].get("send_lag_max_ms") or 0 for name in PHASES if name in out)
    if lag > LAG_WARNING_MS:
        lines.append(
            f"warning: the load generator fell up to {lag:.0f} ms behind its schedule "
            "(a busy machine?): the figures include that"
        )
    for name in PHASES:
        if out.get(name, {}).get("first_error"):
            lines.append(f"{name} first error: {out[name]['first_error']}")
    return "\n".join(lines)
