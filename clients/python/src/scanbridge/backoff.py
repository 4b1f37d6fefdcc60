"""How long to wait between attempts to reach the daemon again."""

import random
from dataclasses import dataclass, field


@dataclass
class Backoff:
    """Exponential delays from `initial` to at most `maximum` seconds, each drawn at random from
    its upper half, so that every till of a shop does not knock at once after a restart.
    `give_up_after` (seconds, None for never) bounds the attempts' total wait."""

    initial: float = 0.2
    maximum: float = 5.0
    factor: float = 2.0
    give_up_after: float | None = None
    rng: random.Random = field(default_factory=random.Random, repr=False)

    def delays(self):
        """The waits, one per attempt after the first; ends when `give_up_after` is spent."""
        ceiling, waited = self.initial, 0.0
        while True:
            delay = self.rng.uniform(ceiling / 2, ceiling)
            if self.give_up_after is not None:
                if waited >= self.give_up_after:
                    return
                delay = min(delay, self.give_up_after - waited)
            waited += delay
            yield delay
            ceiling = min(self.maximum, ceiling * self.factor)
