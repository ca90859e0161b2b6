"""The benchmark's result: one JSON-ready object, and the table printed for people."""

from . import stats

#: A send this late (ms) means the load generator itself was held up.
LAG_WARNING_MS = 20
PHASES = ("app", "floor_django", "floor_http", "floor_channels", "floor_websockets")
FLOOR_SHORT = {
    "floor_django": "django",
    "floor_http": "http",
    "floor_channels": "channels",
    "floor_websockets": "websockets",
}
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
    ("proxy_cpu_ms_per_roll", "prx ms/r"),
    ("rss_peak_mb", "rss MB"),
    ("send_lag_max_ms", "lag ms"),
]
#: Columns printed only when a phase has them: the proxy's, in a run through one.
OPTIONAL = {"proxy_cpu_ms_per_roll"}


#: The knee of the ladder (``--ladder``): a rate whose p99 is over this, or that lost or failed
#: a roll, is past saturation.
KNEE_MS = 100.0


def result(config, phases, ladder=None, notes=()):
    """{config, app, floor_*, app_over_<floor>_p99, app_over_<floor>_p50, app_over_<floor>_cpu}
    (the app's CPU per roll over the floor's per request, in the same run), with ``ladder``
    (the app's summaries at rising rates) the ladder and its ``saturation_rate``, and with
    ``notes`` (sentences: what was not measured, and why) the notes."""
    out = {"config": config, **phases}
    if notes:
        out["notes"] = list(notes)
    app = phases["app"]
    for name, short in FLOOR_SHORT.items():
        if name in phases:
            for q in ("p99", "p50"):
                out[f"app_over_{short}_{q}"] = stats.ratio(app[f"{q}_ms"], phases[name][f"{q}_ms"])
            out[f"app_over_{short}_cpu"] = stats.ratio(
                app.get("cpu_ms_per_roll"), phases[name].get("cpu_ms_per_roll")
            )
    if ladder is not None:
        out["ladder"] = ladder
        out["saturation_rate"] = saturation_rate(ladder)
    return out


def under_the_knee(step):
    return (
        step.get("p99_ms") is not None
        and step["p99_ms"] <= KNEE_MS
        and not step.get("lost")
        and not step.get("errors")
    )


def saturation_rate(ladder):
    """The highest rate of ``ladder`` (the app's summaries, each with its ``rate``, in rising
    order) below which every step stayed under the knee; None if the first did not."""
    best = None
    for step in ladder:
        if not under_the_knee(step):
            break
        best = step["rate"]
    return best


def ratio_line(out, measure, label):
    """[the line of the app's ``measure`` over each floor's], or [] when no floor has it."""
    ratios = [
        f"{short} {out[f'app_over_{short}_{measure}']}x"
        for short in FLOOR_SHORT.values()
        if out.get(f"app_over_{short}_{measure}") is not None
    ]
    return [f"{label}: " + ", ".join(ratios)] if ratios else []


def _cell(value):
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.1f}"
    return str(value)


def table(out):
    config = out["config"]
    phases = [out[name] for name in PHASES if name in out]
    columns = [
        (key, label)
        for key, label in COLUMNS
        if key not in OPTIONAL or any(key in row for row in phases)
    ]
    lines = [
        "bench_rolls: {rooms} rooms x {clients} clients, {rate} rolls/s for {seconds} s, "
        "{sends} rolls, server core {cpu}, database {database}, channel layer {layer}, "
        "load average {loadavg_1m}".format(**config),
    ]
    if config.get("endpoints"):
        through = f" through {config['proxy']}" if config.get("proxy") else ""
        lines.append(
            f"servers: {', '.join(config['endpoints'])}{through}; the CPU of "
            f"{config['measured']} of {config['servers']} app process(es) measured"
        )
    lines.append(f"{'phase':<18}" + "".join(f"{label:>9}" for _, label in columns))
    for name in PHASES:
        if name in out:
            row = out[name]
            lines.append(f"{name:<18}" + "".join(f"{_cell(row.get(k)):>9}" for k, _ in columns))
    lines += ratio_line(out, "p99", "app p99 over floor p99")
    lines += ratio_line(out, "cpu", "app CPU per roll over floor CPU per request")
    if "ladder" in out:
        steps = ", ".join(
            f"{step['rate']:g}/s p99 {_cell(step.get('p99_ms'))} ms"
            f" {_cell(step.get('cpu_ms_per_roll'))} ms/roll"
            + ("" if under_the_knee(step) else " (past the knee)")
            for step in out["ladder"]
        )
        lines.append(f"ladder: {steps}")
        rate = out["saturation_rate"]
        lines.append(
            f"saturation: {rate:g} rolls/s, the last rate with p99 under {KNEE_MS:g} ms"
            if rate is not None
            else f"saturation: below {out['ladder'][0]['rate']:g} rolls/s"
        )
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
    lines += [f"note: {note}" for note in out.get("notes", ())]
    return "\n".join(lines)
