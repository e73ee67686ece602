#!/bin/sh
# A scripted coding agent that finishes at once but leaves a child running, and writes a kernel.
sleep 300 &
echo "child $!"
cp reference.cpp "$KILN_CANDIDATE_FILE"
