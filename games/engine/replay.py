"""``python -m games.engine.replay FILE | - | --jsonl FILE`` (docs/game-record.md).

Prints the replay result of a record as one JSON object (one per line with ``--jsonl``); an
illegal or malformed record exits with status 2 and one line on stderr.
"""

from __future__ import annotations

import json
import sys

from .errors import RecordError
from .record import replay_result


def _fail(message: str) -> int:
    print(message.replace("\n", " "), file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    usage = "usage: python -m games.engine.replay FILE | - | --jsonl FILE"
    jsonl = False
    if args and args[0] == "--jsonl":
        jsonl = True
        args = args[1:]
    if len(args) != 1:
        return _fail(usage)
    name = args[0]
    try:
        if name == "-":
            text = sys.stdin.read()
        else:
            with open(name, encoding="utf-8") as f:
                text = f.read()
    except OSError as e:
        return _fail(f"cannot read {name}: {e.strerror}")
    out = sys.stdout
    if not jsonl:
        try:
            rec = json.loads(text)
        except ValueError as e:
            return _fail(f"record: not valid JSON ({e})")
        try:
            res = replay_result(rec)
        except RecordError as e:
            return _fail(str(e))
        out.write(json.dumps(res, ensure_ascii=False) + "\n")
        return 0
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except ValueError as e:
            return _fail(f"line {lineno}: record: not valid JSON ({e})")
        try:
            res = replay_result(rec)
        except RecordError as e:
            return _fail(f"line {lineno}: {e}")
        out.write(json.dumps(res, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
