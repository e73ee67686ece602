// expect: task=vector_add verdict=crash
#include <csignal>
extern "C" void vector_add(const float *, const float *, float *, int)
{
    std::raise(SIGKILL);
}
