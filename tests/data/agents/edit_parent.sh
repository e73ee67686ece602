#!/bin/sh
# A scripted coding agent: answers a role of the agents strategy in prose, and otherwise edits
# the kernel it was given (the parent, or the reference for a first sample) into candidate.*.
if [ -n "$KILN_ROLE" ] && [ "$KILN_ROLE" != coder ]; then
    echo "The $KILN_ROLE's note: keep the loop simple and contiguous."
    exit 0
fi
for source in parent.* reference.*; do
    [ -f "$source" ] || continue
    { echo "// edited by the scripted agent"; cat "$source"; } > "$KILN_CANDIDATE_FILE"
    echo "wrote $(basename "$KILN_CANDIDATE_FILE") from $source"
    exit 0
done
echo "nothing to edit" >&2
exit 1
