"""bridge_runtime's variant in a second module, with a runtime of its own
(tests/python/bridge.sh)."""
import bridge_runtime

VARIANTS = []
bridge_runtime.declare(VARIANTS)
