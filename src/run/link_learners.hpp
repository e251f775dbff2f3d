#pragma once
// Makes the LibTorch optimisers (Adam, the preconditioned gradient) available to run() (run/optimiser_factories.hpp).
// In noiselearn::learners, which does it by itself: linking that library (or noiselearn::noiselearn) registers them
// before main() (link_learners.cpp). Calling this is still allowed, and idempotent: it registers the same factories.
namespace noiselearn {

void link_learners();

}  // namespace noiselearn

// The symbol that the noiselearn_learners target asks every program linking it to keep (an INTERFACE link option,
// -Wl,--undefined=noiselearn_learners_registration in src/run/CMakeLists.txt): a static library contributes only the
// objects something refers to, and nothing refers to the one whose static initialiser registers the learners. A program
// linked by hand (without CMake) passes the same option, or calls link_learners().
extern "C" int noiselearn_learners_registration;
