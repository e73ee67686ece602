#!/bin/sh
# A scripted coding agent that leaves a FIFO as its candidate: reading it would block.
mkfifo "$KILN_CANDIDATE_FILE"
