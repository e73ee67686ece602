#!/bin/sh
# A scripted coding agent that tries to read what lies outside its folder: a file the test
# names, and the folder around its own.
cat "$KILN_TEST_SECRET" > "$KILN_CANDIDATE_FILE"
ls .. > listing.txt 2>&1 || echo "no listing of .."
cat "$KILN_CANDIDATE_FILE"
