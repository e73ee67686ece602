#!/bin/sh
# A scripted coding agent that prints an agent CLI's recorded output (KILN_TEST_RECORDED).
cat "$KILN_TEST_RECORDED"
