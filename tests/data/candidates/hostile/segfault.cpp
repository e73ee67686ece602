// expect: task=vector_add verdict=crash
extern "C" void vector_add(const float *, const float *, float *, int)
{
    volatile float *p = nullptr;
    *p = 1.0f;
}
