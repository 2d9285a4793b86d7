"""Phase timings: exclusive per phase, nothing outside a collector, no mixing across threads."""

from concurrent.futures import ThreadPoolExecutor

from agentsite import timings


class Ticks:
    """A stand-in for ``time.perf_counter`` that advances by hand (no wall time in tests)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_nested_phases_are_exclusive_and_the_rest_goes_to_the_root(monkeypatch):
    ticks, cpu = Ticks(), Ticks()
    monkeypatch.setattr(timings.time, "perf_counter", ticks)
    monkeypatch.setattr(timings.time, "thread_time", cpu)
    with timings.collect("rest") as spent:
        ticks.now += 1.0  # rest
        with timings.phase("recall"):
            ticks.now += 2.0  # recall
            with timings.phase("embedding"):
                ticks.now += 15.0
                cpu.now += 14.0  # busy: the CPU time of the embedding
            ticks.now += 3.0  # recall again (waiting: no CPU)
        with timings.phase("embedding"):
            ticks.now += 5.0
    assert spent.seconds == {"rest": 1.0, "recall": 5.0, "embedding": 20.0}
    assert spent.cpu_seconds == {"rest": 0.0, "recall": 0.0, "embedding": 14.0}
    assert spent.milliseconds()["recall"] == 5000.0
    assert spent.cpu_milliseconds()["embedding"] == 14000.0


def test_a_phase_with_no_collector_does_nothing():
    with timings.phase("model"):
        pass
    with timings.collect("root") as spent:
        pass
    assert set(spent.seconds) == {"root"}


def test_timed_proxy_and_decorator_charge_their_phase(monkeypatch):
    ticks = Ticks()
    monkeypatch.setattr(timings.time, "perf_counter", ticks)

    class Store:
        size = 3

        def load(self, n: int) -> int:
            ticks.now += n
            return n * 2

    @timings.timed("working_memory")
    def build() -> str:
        ticks.now += 0.5
        return "built"

    store = timings.Timed(Store(), "short_term")
    with timings.collect("bookkeeping") as spent:
        assert store.load(2) == 4
        assert store.size == 3
        assert build() == "built"
    assert spent.seconds == {"bookkeeping": 0.0, "short_term": 2.0, "working_memory": 0.5}


def test_threads_of_a_pool_keep_their_own_figures():
    def work(name: str) -> set[str]:
        with timings.collect("root") as spent, timings.phase(name):
            pass
        return set(spent.seconds)

    with ThreadPoolExecutor(4) as pool:
        seen = list(pool.map(work, [f"phase{i}" for i in range(16)]))
    assert seen == [{"root", f"phase{i}"} for i in range(16)]
