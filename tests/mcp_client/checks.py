"""The check helper the MCP client scripts share: counts passes, stops at the first failure."""
import sys

PASSED = 0


def check(condition, what):
    global PASSED
    if not condition:
        print(f"FAILED: {what}", file=sys.stderr)
        print(f"{PASSED} passed, 1 failed")
        sys.exit(1)
    PASSED += 1


def passed():
    return PASSED
