#!/bin/sh
# A scripted coding agent that never finishes: a child of its own sleeps, and so does it.
sleep 300 &
echo "child $!"
wait
