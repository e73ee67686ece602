#!/bin/sh
# A scripted coding agent that leaves a link to a file it may not read as its candidate, for Kiln
# (which reads unconfined) to follow.
ln -s "$KILN_TEST_SECRET" "$KILN_CANDIDATE_FILE"
