#pragma once

// The request/reply channel of protocol.h and helpers shared by kiln-sandbox and
// kiln-cuda-sandbox.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kiln::sandbox {

// Moves the protocol descriptors out of the candidate's easy reach (0 and 1 are reassigned: the
// candidate's stdout joins the capped diagnostics stream) and closes everything else inherited.
// Returns the buffer descriptor, or a negative value when the protocol descriptors are missing.
// closeInherited false keeps the rest (a profiler injected before main holds its own there).
int takeProtocolDescriptors(bool closeInherited = true);

// A persistent sandbox outlives the engine thread that started it, and PR_SET_PDEATHSIG follows
// that thread: it would kill the sandbox mid-evaluation once the thread ends. Instead, a thread
// of ours waits for the engine's end of the request pipe to close (the engine is gone) and
// kills the whole process. Call once the namespaces are set up (it starts a thread).
void endWithTheEngine();

void reply(const std::string &line);
// One request line; false on end of input.
bool readLine(std::string &line);
std::vector<std::string> splitWords(const std::string &line);
std::vector<std::string> splitFields(const std::string &word); // on ':'

// Fatal signals and failed allocations are reported on the reply channel before the process
// dies ("fatal <signal> <errno> <address>", "resource alloc").
void installCrashReporting();

// One "args" request: pointers (offsets into a buffer of `limit` bytes), ints and reals.
struct ArgumentSet
{
    std::vector<std::uint64_t> offsets;
    std::vector<long long> ints;
    std::vector<double> reals;
};
// Parses "args <id> <np> offsets... <ni> ints... <nr> reals..."; on failure, why.
bool parseArguments(const std::vector<std::string> &words, std::uint64_t limit, std::size_t &id,
                    ArgumentSet &set, std::string &error);

// The "args" request: parses it into sets[id] (growing sets) and replies.
template <class Set>
void storeArguments(const std::vector<std::string> &words, std::uint64_t limit,
                    std::vector<Set> &sets)
{
    Set set;
    std::size_t id = 0;
    std::string error;
    if (!parseArguments(words, limit, id, set, error)) {
        reply("err " + error);
        return;
    }
    if (id >= sets.size())
        sets.resize(id + 1);
    sets[id] = std::move(set);
    reply("ok");
}

// Reads requests until "quit" (answered "ok") or the end of input. handle returns false for a
// request it does not know, which is answered "err unknown request <name>".
void serveRequests(const std::function<bool(const std::vector<std::string> &)> &handle);

// Maps the shared buffer descriptor (replacing an earlier mapping); false when it is empty or
// cannot be mapped.
bool mapSharedBuffer(int fd, char *&base, std::uint64_t &size);

// "probe <ms>": CPU used by threads other than the main one while it sleeps -> the reply.
std::string probeOtherThreads(const std::vector<std::string> &words);

int countThreads();
// Nanoseconds of CPU used so far by every thread except the main one.
unsigned long long otherThreadsCpuNs();

std::uint64_t numberOption(int argc, char **argv, const char *name, std::uint64_t fallback);
const char *textOption(int argc, char **argv, const char *name);

} // namespace kiln::sandbox
