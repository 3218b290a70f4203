"""`paused_collection()`: no cyclic garbage collection while a burst of objects is built.

Building a tree, a node list or a server creates tens of thousands of container objects
at once; each collection pass the allocations trigger in the middle walks every live
object and finds nothing to free (the trees have no reference cycles: they are freed by
reference counting).  One pass later costs less than many in between.

Safe across threads: whoever found collection enabled turns it back on, so it is never
left off; a thread that starts while another has paused it just runs unpaused sooner.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_collection() -> Iterator[None]:
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
