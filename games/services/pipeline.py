"""The move pipeline: every change to a game goes load -> plan -> compare-and-set -> publish here.

Written once, as generators of `executor.Step`s (the model is lichess's RoundAsyncActor: load,
plan, compare-and-set, publish, whoever the caller). A `Run` is one pass of them, suspended at
its next step; `finish` runs it through Django's connection (a worker thread, a Celery task, a
view), `on_loop` on the event loop's own connections. On the event loop a step it must not take
(the end of a game, a table with a bot: `executor.Loop.takes`) stops the run there, and the
caller hands the same run, planned already, to the worker thread (`live.submit`): nothing is
loaded or planned twice.

- A lost compare-and-set (`Conflict`) is planned again from a fresh read, up to `ATTEMPTS`, so
  simultaneous discards and votes never bounce; a lost race for the same decision ends in the
  engine's refusal.
- A connection that dies under a step (`executor.Lost`: a PostgreSQL restart) is settled once:
  a read is read again on a fresh connection; a write is looked up (`storage.cas_landed`):
  landed, what its commit would have done is done; not written and the table unchanged, written
  once more; moved on, `Conflict`. What still fails is `Unavailable`.
- The end of a game writes more than the table (`_game_over`), in the commit's transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

from ..models import Table
from .endings import game_over
from .errors import Conflict, ServiceError, Unavailable
from .executor import LOOP, WORKER, Loop, Lost, Step
from .moves import Plan
from .storage import cached_table, cas_applied, cas_landed, remember_game, remember_table

#: A pass of the pipeline: the steps it asks for, what each answered, what it returns.
Steps = Generator[Step, Any, Any]

# A lost compare-and-set is retried this often: enough for all four seats of a discard round
# arriving at the same moment (each round of retries lets at least one of them through).
ATTEMPTS = 6


@dataclass(slots=True)
class Run:
    """One pass of the pipeline, suspended at `step` (None before it starts and once done, when
    `value` is what it returned). It may start on the event loop and finish in a thread."""

    steps: Steps
    step: Step | None = None
    value: Any = None

    def answer(self, result: Any = None, error: BaseException | None = None) -> bool:
        """Give the steps the answer to the last one; False once they are done."""
        try:
            self.step = self.steps.throw(error) if error else self.steps.send(result)
        except StopIteration as stop:
            self.step, self.value = None, stop.value
            return False
        except Lost:  # steps that do not settle a dead connection themselves
            raise Unavailable() from None
        return True

    def going(self) -> bool:
        """Whether there is a step to do, starting the run if it has not started."""
        return self.step is not None or self.answer()


def finish(run: Run) -> Any:
    """Run (the rest of) `run` here, through Django's connection; what it returns."""
    going = run.going()
    while going:
        going = run.answer(*WORKER.do(run.step))  # type: ignore[arg-type]
    return run.value


async def on_loop(run: Run, executor: Loop = LOOP) -> bool:
    """Run `run` on the event loop: True once done; False at a step the loop does not take,
    which `finish` goes on with (in the worker thread)."""
    going = run.going()
    while going:
        if not executor.takes(run.step):  # type: ignore[arg-type]
            return False
        going = run.answer(*await executor.do(run.step))  # type: ignore[arg-type]
    return True


# --------------------------------------------------------------------------------------------
# The steps.
# --------------------------------------------------------------------------------------------
def reading(step: Step) -> Generator[Step, Any, Any]:
    """A read, once more on a fresh connection if this one died; `Unavailable` if that fails
    too."""
    for _attempt in range(2):
        try:
            return (yield step)
        except Lost:
            continue
    raise Unavailable()


def loading(table_id: int) -> Generator[Step, Any, Table | None]:
    """Read the table (`reading`)."""
    table: Table | None = yield from reading(Step("load", (table_id,)))
    return table


def changing(
    table_id: int, make_plan: Callable[[Table | None], Plan | None]
) -> Generator[Step, Any, Plan | None]:
    """Plan (`make_plan`; None: nothing to do) and commit, from the table the last move here
    read or wrote (`storage.cached_table`) or else a fresh read; again from a fresh read while
    somebody else wins the compare-and-set, which is the check that the copy was current. A
    refusal from the copy is checked against a fresh read too. The committed plan, or None."""
    warm = cached_table(table_id)
    for attempt in range(ATTEMPTS):
        plan = None
        if warm is not None:
            with suppress(ServiceError):
                plan = make_plan(warm)
            warm = None
        if plan is None:
            table = yield from loading(table_id)
            if table is not None:
                remember_table(table)
            plan = make_plan(table)
            if plan is None:
                return None
        try:
            yield from committing(plan)
        except Conflict:
            if attempt == ATTEMPTS - 1:
                raise
            continue
        return plan
    raise AssertionError("unreachable")  # pragma: no cover


def committing(plan: Plan) -> Generator[Step, Any, None]:
    """Write `plan` (`Conflict` if the table moved on since it was read), remember its game and
    tell every socket."""
    inside = _game_over if plan.ends_game else None
    try:
        yield Step("write", (plan, inside))
    except Lost:
        yield from _settle(plan, inside)
    remember_game(plan.table, plan.after)
    remember_table(plan.table)
    yield Step("publish", (plan.table,))


def _settle(plan: Plan, inside: Callable[[Table], None] | None) -> Generator[Step, Any, None]:
    """The write of `plan` lost its answer with its connection: did it land?"""
    table = plan.table
    fresh = yield from loading(table.pk)
    if fresh is not None and cas_landed(table, plan.fields, fresh):
        # It landed: the in-memory table is brought up to date as after its own commit.
        cas_applied(table, plan.fields, 1)
        if inside is not None:
            yield Step("run", (inside, table))
        return
    if fresh is None or fresh.version != table.version:
        raise Conflict()
    try:
        yield Step("write", (plan, inside))
    except Lost:
        raise Unavailable() from None


def _game_over(table: Table) -> None:
    """Every end-of-game side effect of a commit, in its transaction: the finisher's
    (`endings.game_over`: the seats freed, a game played out announced)."""
    game_over(table)


# --------------------------------------------------------------------------------------------
# Entries.
# --------------------------------------------------------------------------------------------
def commit(plan: Plan) -> None:
    """Write `plan`, planned from the table as read, here; `Conflict` if it changed since."""
    finish(Run(committing(plan)))


def change(table_id: int, make_plan: Callable[[Table | None], Plan | None]) -> Plan | None:
    """`changing`, here."""
    plan: Plan | None = finish(Run(changing(table_id, make_plan)))
    return plan


def run(steps: Steps) -> Any:
    """What `steps` return, run here (`finish`)."""
    return finish(Run(steps))


async def run_on_loop(steps: Steps, executor: Loop = LOOP) -> Any:
    """What `steps` return, run on the event loop; only steps it takes (no ORM)."""
    started = Run(steps)
    done = await on_loop(started, executor)
    assert done, started.step
    return started.value


async def table_on_loop(table_id: int) -> Table | None:
    """The table read on the event loop (`loading`)."""
    table: Table | None = await run_on_loop(loading(table_id))
    return table
