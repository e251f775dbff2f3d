// Draws from a 3-point table (x = 0, 1, 2 with p = 0.2, 0.5, 0.3) with the installed secure sampler and checks the
// frequencies against p (each within 6 standard deviations of 200,000 draws) and that add_noise stays on the
// lattice. Exit 0 when they agree.
#include <cmath>
#include <cstdio>
#include <fstream>

#include "sampler/secure_sampler.hpp"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  {
    std::ofstream table(argv[1]);
    table << "x,p\n0,0.2\n1,0.5\n2,0.3\n";
  }
  auto sampler = noiselearn::sampler::SecureSampler::from_file(argv[1]);
  const double p[3] = {0.2, 0.5, 0.3};
  long counts[3] = {0, 0, 0};
  const long draws = 200000;
  for (long i = 0; i < draws; ++i) ++counts[sampler.draw_index()];
  bool ok = sampler.is_cryptographic();
  for (int i = 0; i < 3; ++i) {
    const double sd = std::sqrt(draws * p[i] * (1.0 - p[i]));
    std::printf("x = %d: %ld draws, expected %.0f +- %.0f\n", i, counts[i], draws * p[i], sd);
    ok = ok && std::abs(counts[i] - draws * p[i]) <= 6.0 * sd;
  }
  const double released = sampler.add_noise(10.0);
  ok = ok && (released == 10.0 || released == 11.0 || released == 12.0);
  std::printf("add_noise(10) = %g; %s\n", released, ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
