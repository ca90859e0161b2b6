"""``python -m bench.stacks FILE [--top 40] [--match WORD ...]``: a summary of py-spy's
collapsed stacks (``py-spy record --format raw``, as ``bench_connects --profile`` writes them):
the samples per thread, then the functions by their inclusive share of all samples (a function
counted once per sample, however deep it recurs), those whose frame names one of ``--match``
first."""

import argparse
import collections
import re

#: "name (path:line)" of a frame: the function and its file, the line left out.
FRAME = re.compile(r"^(?P<name>.*?) \((?P<path>[^:()]*)(:\d+)?\)$")


def frame_key(frame):
    found = FRAME.match(frame.strip())
    if not found:
        return frame.strip()
    path = found["path"]
    for cut in ("site-packages/", "/connect/", "/main/"):
        if cut in path:
            path = path.split(cut, 1)[1]
    return f"{found['name']} ({path})"


def read(path):
    """[(thread, [frame keys, outermost first], samples)]."""
    rows = []
    with open(path) as lines:
        for line in lines:
            line = line.rstrip("\n")
            if not line:
                continue
            stack, _, count = line.rpartition(" ")
            frames = stack.split(";")
            thread = frames[0] if frames[0].startswith(("thread", "process")) else ""
            if thread:
                frames = frames[1:]
            rows.append((thread, [frame_key(f) for f in frames], int(count)))
    return rows


def summary(rows, top=40, match=()):
    total = sum(count for _, _, count in rows)
    threads = collections.Counter()
    inclusive = collections.Counter()
    for thread, frames, count in rows:
        threads[thread] += count
        for key in set(frames):
            inclusive[key] += count
    lines = [f"{total} samples"]
    for thread, count in threads.most_common():
        lines.append(f"  {100 * count / total:5.1f} %  {thread or '(no thread)'}")
    chosen = [k for k in inclusive if any(word in k for word in match)]
    chosen.sort(key=lambda k: -inclusive[k])
    lines.append("matched:" if match else "")
    lines += [f"  {100 * inclusive[k] / total:5.1f} %  {k}" for k in chosen]
    lines.append("inclusive:")
    lines += [f"  {100 * count / total:5.1f} %  {key}" for key, count in inclusive.most_common(top)]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("file")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--match", nargs="*", default=())
    options = parser.parse_args()
    print(summary(read(options.file), options.top, options.match))


if __name__ == "__main__":
    main()
