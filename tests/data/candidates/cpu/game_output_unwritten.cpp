// expect: task=vector_add verdict=wrong flag=output_unwritten
// Gaming: returns at once, hoping the output buffer still holds a correct answer. The sandbox
// fills outputs with guard words, so the check fails: wrong, with the suspicion noted (a kernel
// that launches nothing for a small shape leaves the same evidence).
extern "C" void vector_add(const float *, const float *, float *, int) {}
