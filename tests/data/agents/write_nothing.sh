#!/bin/sh
# A scripted coding agent that thinks aloud and writes no kernel.
echo "I could not decide on a tiling." >&2
exit 0
