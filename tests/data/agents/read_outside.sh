#!/bin/sh
# A scripted coding agent that tries to read what lies outside its folder: a file the test
# names, the folder around its own, and the memory map of the process that started it.
cat "$KILN_TEST_SECRET" > "$KILN_CANDIDATE_FILE"
ls .. > listing.txt 2>&1 || echo "no listing of .."
cat "$KILN_CANDIDATE_FILE"
head -c 300 "/proc/$KILN_TEST_PID/maps"
