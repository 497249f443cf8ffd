"""Shared check: a call leaves no reference cycles (its intermediates die by reference
counting, so memory is freed as soon as the last reader is done)."""
import gc


def assert_no_reference_cycles(name, call):
    """Run `call` twice (the first warms caches) and fail if the second leaves garbage that
    only the cycle collector could free."""
    call()
    gc.collect()
    gc.disable()
    try:
        gc.set_debug(gc.DEBUG_SAVEALL)
        call()
        gc.collect()
        garbage = [type(o).__name__ for o in gc.garbage]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert garbage == [], f"{name} left reference cycles: {garbage[:20]}"
