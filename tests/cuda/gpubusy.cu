// kiln-gpu-busy [seconds]: keeps every visible GPU busy from a process of its own (another CUDA
// context, which the driver time-slices with the verifier's), as another user's job would, for
// tst_gpudisturbance. Kernels of about a millisecond are queued several deep, so the GPU always
// has work of this context waiting; "busy" is printed once the first ones ran. Ends when stdin
// closes (its parent let go) or after `seconds` (default 300).
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <poll.h>
#include <unistd.h>

constexpr int kQueued = 8; // kernels in flight per device between two checks of stdin

__global__ void spin(long long cycles)
{
    const long long start = clock64();
    while (clock64() - start < cycles) {
    }
}

// Whether stdin was closed (or is not a pipe at all any more).
static bool parentGone()
{
    pollfd in{STDIN_FILENO, POLLIN, 0};
    if (::poll(&in, 1, 0) <= 0)
        return false;
    char byte = 0;
    return (in.revents & (POLLHUP | POLLERR | POLLNVAL)) != 0 ||
           ::read(STDIN_FILENO, &byte, 1) <= 0;
}

int main(int argc, char **argv)
{
    const double seconds = argc > 1 ? std::atof(argv[1]) : 300.0;
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::fprintf(stderr, "kiln-gpu-busy: no CUDA device\n");
        return 1;
    }
    const auto end = std::chrono::steady_clock::now() +
                     std::chrono::milliseconds(static_cast<long long>(seconds * 1000.0));
    bool announced = false;
    while (std::chrono::steady_clock::now() < end && !parentGone()) {
        for (int d = 0; d < devices; ++d) {
            int clockKhz = 0, sms = 0;
            cudaSetDevice(d);
            cudaDeviceGetAttribute(&clockKhz, cudaDevAttrClockRate, d);
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, d);
            for (int k = 0; k < kQueued; ++k)
                spin<<<sms, 128>>>(static_cast<long long>(clockKhz)); // about 1 ms
        }
        for (int d = 0; d < devices; ++d) {
            cudaSetDevice(d);
            if (cudaDeviceSynchronize() != cudaSuccess) {
                std::fprintf(stderr, "kiln-gpu-busy: %s\n", cudaGetErrorString(cudaGetLastError()));
                return 1;
            }
        }
        if (!announced) {
            std::printf("busy\n");
            std::fflush(stdout);
            announced = true;
        }
    }
    return 0;
}
