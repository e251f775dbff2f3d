// The secure sampler draws exactly from its quantised integer weights: checked by enumerating every random
// input on tiny tables, by chi-square on 10^6 draws for several tables, and by the rounding rule's invariants.
#include <catch2/catch.hpp>

#include <cmath>
#include <deque>
#include <numeric>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "sampler/chi_square.hpp"
#include "sampler/entropy_source.hpp"
#include "sampler/grid_release.hpp"
#include "sampler/integer_alias_table.hpp"
#include "sampler/inverse_cdf.hpp"
#include "sampler/quantised_table.hpp"
#include "sampler/random_bits.hpp"
#include "sampler/secure_sampler.hpp"

using namespace noiselearn::sampler;
using noiselearn::testing::chi_square_tail;
using noiselearn::testing::chi_square_test;
using noiselearn::testing::chi_square_threshold;

namespace {

// Serves the given words, then zeros: lets a test choose every bit the sampler sees.
class ScriptedEntropySource final : public EntropySource {
 public:
  explicit ScriptedEntropySource(std::deque<uint64_t> words) : words_(std::move(words)) {}
  void fill(uint64_t* out, size_t count) override {
    for (size_t i = 0; i < count; ++i) {
      out[i] = words_.empty() ? 0 : words_.front();
      if (!words_.empty()) words_.pop_front();
    }
  }
  bool is_cryptographic() const override { return false; }

 private:
  std::deque<uint64_t> words_;
};

RandomBits test_bits(uint64_t seed) { return RandomBits(std::make_unique<DeterministicTestEntropySource>(seed)); }

std::vector<double> normalised(std::vector<double> p) {
  const double sum = std::accumulate(p.begin(), p.end(), 0.0);
  for (double& v : p) v /= sum;
  return p;
}

std::vector<double> discrete_gaussian(int range, double sigma) {
  std::vector<double> p;
  for (int x = -range; x <= range; ++x) p.push_back(std::exp(-0.5 * x * x / (sigma * sigma)));
  return normalised(p);
}

std::vector<double> geometric(int size, double ratio) {
  std::vector<double> p;
  for (int i = 0; i < size; ++i) p.push_back(std::pow(ratio, i));
  return normalised(p);
}

// False-alarm rate of each goodness-of-fit test: 1e-6, so the five tables below (fixed seeds) together
// reject a correct sampler with probability below 5e-6.
constexpr double kFalseAlarm = 1e-6;
constexpr int64_t kDraws = 1'000'000;

}  // namespace

TEST_CASE("chi-square threshold: closed forms for 1 and 2 degrees of freedom", "[sampler]") {
  // df = 2: P(chi2 > x) = exp(-x / 2), so the 1e-6 threshold is 2 ln 1e6.
  CHECK(chi_square_threshold(2, 1e-6) == Approx(2.0 * std::log(1e6)).epsilon(1e-12));
  // df = 1: P(chi2 > x) = erfc(sqrt(x / 2)).
  for (double x : {0.5, 3.0, 10.0, 23.9, 40.0})
    CHECK(chi_square_tail(1, x) == Approx(std::erfc(std::sqrt(x / 2.0))).epsilon(1e-10));
  // Large df: the median of chi2_df is close to df (1 - 2 / (9 df))^3 (Wilson-Hilferty).
  CHECK(chi_square_tail(1000, 1000.0 * std::pow(1.0 - 2.0 / 9000.0, 3)) == Approx(0.5).margin(1e-3));
}

TEST_CASE("uniform_below: each value below n is accepted from exactly one bit pattern, the rest rejected",
          "[sampler]") {
  // Counting argument: uniform_below(n) reads k = bit width of n - 1 bits; if every value below n comes from
  // exactly one of the 2^k equally likely patterns and every other pattern is rejected (and redrawn), each
  // value has probability 1/n exactly. Each pattern v is followed by fields 0 and 1 so that acceptance
  // (result v, next field 0) and rejection (result 0, next field 1) are told apart.
  for (uint64_t n = 2; n <= 300; ++n) {
    const int k = RandomBits::bit_width(n - 1);
    std::vector<int> hits(n, 0);
    int rejected = 0;
    for (uint64_t v = 0; v < (uint64_t{1} << k); ++v) {
      RandomBits bits(std::make_unique<ScriptedEntropySource>(std::deque<uint64_t>{v | (uint64_t{1} << (2 * k))}));
      const uint64_t result = bits.uniform_below(n);
      const uint64_t next = bits.bits(k);
      if (next == 0) {
        REQUIRE(result == v);
        ++hits[result];
      } else {
        REQUIRE(next == 1);
        REQUIRE(result == 0);
        REQUIRE(v >= n);
        ++rejected;
      }
    }
    for (uint64_t value = 0; value < n; ++value) REQUIRE(hits[value] == 1);
    REQUIRE(rejected == static_cast<int>((uint64_t{1} << k) - n));
  }
}

TEST_CASE("uniform_below: chi-square on 10^6 draws, small and near-2^63 ranges", "[sampler]") {
  RandomBits bits = test_bits(20261122);
  std::vector<int64_t> six(6, 0);
  for (int64_t i = 0; i < kDraws; ++i) ++six[bits.uniform_below(6)];
  const auto small = chi_square_test(six, std::vector<double>(6, 1.0 / 6.0), kDraws, kFalseAlarm);
  INFO("chi2 " << small.statistic << " df " << small.degrees_of_freedom << " threshold " << small.threshold);
  CHECK(small.statistic < small.threshold);
  // n = 3 * 2^61: a modulo reduction of 63 bits would make the top third half as likely as the others.
  const uint64_t n = 3 * (uint64_t{1} << 61);
  std::vector<int64_t> thirds(3, 0);
  for (int64_t i = 0; i < kDraws; ++i) ++thirds[bits.uniform_below(n) >> 61];
  const auto large = chi_square_test(thirds, std::vector<double>(3, 1.0 / 3.0), kDraws, kFalseAlarm);
  INFO("chi2 " << large.statistic << " threshold " << large.threshold);
  CHECK(large.statistic < large.threshold);
}

TEST_CASE("quantisation never turns a positive probability into 0 and sums to 2^bits exactly", "[sampler]") {
  const std::vector<double> p{1e-300, 0.25, 1e-20, 0.0, 0.25, 0.5 - 1e-20, 4.9e-324};
  for (int bits : {3, 10, 53, 62}) {
    const QuantisedTable q = quantise(p, bits);
    INFO("total_bits " << bits);
    uint64_t sum = 0;
    for (size_t i = 0; i < p.size(); ++i) {
      CHECK((q.weights[i] > 0) == (p[i] > 0.0));
      sum += q.weights[i];
    }
    CHECK(sum == q.total());
    CHECK(q.cells_lifted == 3);
    CHECK(q.probability(0) == std::ldexp(1.0, -bits));  // a lifted cell holds exactly the floor of 1 unit
  }
}

TEST_CASE("quantisation: largest remainder, excess taken from the smallest remainders, stated change", "[sampler]") {
  // 16 / 3 = 5.33 each: floors 5, 5, 5 and the one missing unit goes to the first of the tied remainders.
  const QuantisedTable thirds = quantise({1.0 / 3, 1.0 / 3, 1.0 / 3}, 4);
  CHECK(thirds.weights == std::vector<uint64_t>{6, 5, 5});
  CHECK(thirds.max_abs_change == Approx(6.0 / 16 - 1.0 / 3).epsilon(1e-12));
  // Two cells lifted to 1 unit of 8: the two excess units come from the large cells.
  const QuantisedTable lifted = quantise({0.5, 0.5, 1e-300, 1e-300}, 3);
  CHECK(lifted.weights == std::vector<uint64_t>{3, 3, 1, 1});
  CHECK(lifted.max_abs_change == Approx(0.125));
  // Without lifting, every cell moves by less than one unit.
  const std::vector<double> gaussian = discrete_gaussian(100, 20.0);
  const QuantisedTable fine = quantise(gaussian, 53);
  CHECK(fine.cells_lifted == 0);
  CHECK(fine.max_abs_change <= std::ldexp(1.0, -53) * 1.0000001);
  // More positive cells than units cannot keep every cell positive: refused.
  CHECK_THROWS_AS(quantise(std::vector<double>(9, 1.0 / 9), 3), std::invalid_argument);
}

TEST_CASE("quantisation at 53 bits is idempotent: the quantised table read back as doubles gives the same weights",
          "[sampler]") {
  const std::vector<double> p = normalised({1e-300, 0.1, 0.2, 1e-20, 0.3, 0.4});
  const QuantisedTable q = quantise(p, 53);
  const QuantisedTable again = quantise(q.probabilities(), 53);
  CHECK(again.weights == q.weights);
  CHECK(again.max_abs_change == 0.0);
}

TEST_CASE("alias table and inverse CDF: every random input enumerated gives exactly the integer weights", "[sampler]") {
  // P(i) = #{(column, unit) -> i} / (K T) for the alias table and #{unit -> i} / T for the inverse CDF:
  // enumerating all K T (resp. T) equally likely inputs must count exactly w_i K (resp. w_i) for each cell.
  for (const auto& p : std::vector<std::vector<double>>{
           {0.5, 0.3, 0.2, 1e-300}, {0.05, 0.4, 1e-20, 0.15, 0.4}, {1.0}, {0.2, 0.0, 0.3, 0.25, 0.0, 0.25, 1e-300}}) {
    for (int bits : {5, 8}) {
      const QuantisedTable q = quantise(p, bits);
      const IntegerAliasTable alias(q);
      const IntegerInverseCdf inverse(q);
      std::vector<uint64_t> alias_count(p.size(), 0), inverse_count(p.size(), 0);
      for (uint64_t unit = 0; unit < q.total(); ++unit) {
        ++inverse_count[inverse.outcome(unit)];
        for (uint64_t column = 0; column < alias.columns(); ++column) ++alias_count[alias.outcome(column, unit)];
      }
      for (size_t i = 0; i < p.size(); ++i) {
        INFO("cell " << i << " of " << p.size() << ", total_bits " << bits);
        CHECK(inverse_count[i] == q.weights[i]);
        CHECK(alias_count[i] == q.weights[i] * p.size());
      }
    }
  }
}

TEST_CASE("secure sampler: chi-square goodness of fit on 10^6 draws for five tables", "[sampler]") {
  struct Case {
    std::string name;
    std::vector<double> p;
  };
  std::vector<double> tiny_cells = normalised({0.3, 1e-300, 0.2, 1e-20, 0.25, 0.25});
  std::vector<double> irregular{0.3, 0.2, 0.15, 0.15, 0.1, 0.06, 0.04};
  const std::vector<Case> cases{{"discrete Gaussian sigma 20, 201 points", discrete_gaussian(100, 20.0)},
                                {"one-sided geometric r 0.9, 151 points", geometric(151, 0.9)},
                                {"irregular 7 cells", irregular},
                                {"cells of 1e-300 and 1e-20", tiny_cells},
                                {"discrete Gaussian sigma 300, 2001 points", discrete_gaussian(1000, 300.0)}};
  uint64_t seed = 1;
  for (const auto& c : cases) {
    SamplerTable table;
    table.origin = 0.0;
    table.probabilities = c.p;
    SecureSampler sampler(table, std::make_unique<DeterministicTestEntropySource>(seed++));
    CHECK_FALSE(sampler.is_cryptographic());
    std::vector<int64_t> counts(c.p.size(), 0);
    for (int64_t i = 0; i < kDraws; ++i) ++counts[sampler.draw_index()];
    // Against the quantised probabilities: they are what is sampled (and within 2^-53 of the table).
    const auto result = chi_square_test(counts, sampler.quantised().probabilities(), kDraws, kFalseAlarm);
    INFO(c.name << ": chi2 " << result.statistic << " df " << result.degrees_of_freedom << " threshold(1e-6) "
                << result.threshold << " p-value " << result.tail);
    CHECK(result.statistic < result.threshold);
    WARN(c.name << ": chi2 = " << result.statistic << " on " << result.degrees_of_freedom << " df (1e-6 threshold "
                << result.threshold << ", p-value " << result.tail << ")");
  }
}

TEST_CASE("the OS entropy source is the default and is cryptographic", "[sampler]") {
  SamplerTable table;
  table.probabilities = {0.25, 0.5, 0.25};
  SecureSampler sampler(table);
  CHECK(sampler.is_cryptographic());
  std::vector<int64_t> counts(3, 0);
  for (int i = 0; i < 1000; ++i) ++counts[sampler.draw_index()];
  CHECK(counts[0] + counts[1] + counts[2] == 1000);
  CHECK(counts[1] > 0);
}

TEST_CASE("grid release: the answer is snapped to the lattice and the output depends on the integer sum only",
          "[sampler]") {
  CHECK(snap_to_grid_steps(2.6, 0.5) == 5);
  CHECK(snap_to_grid_steps(2.75, 0.5) == 6);  // 5.5 steps: ties to even
  CHECK(snap_to_grid_steps(-7.2, 1.0) == -7);
  CHECK_THROWS_AS(snap_to_grid_steps(std::nan(""), 1.0), std::invalid_argument);
  CHECK_THROWS_AS(snap_to_grid_steps(1e300, 1.0), std::invalid_argument);
  CHECK(lattice_value(7, -3.0, 1.0) == 4.0);

  // Two answers that snap to the same lattice point give bit-identical releases for the same noise:
  // nothing of the answer's low-order bits survives (Mironov's attack needs them).
  SamplerTable table;
  table.origin = -2.0;
  table.probabilities = {0.1, 0.2, 0.4, 0.2, 0.1};
  SecureSampler first(table, std::make_unique<DeterministicTestEntropySource>(7));
  SecureSampler second(table, std::make_unique<DeterministicTestEntropySource>(7));
  for (int i = 0; i < 1000; ++i) {
    const double a = first.add_noise(41.9999999), b = second.add_noise(42.0000001);
    REQUIRE(a == b);
    REQUIRE(a == std::floor(a));  // an integer grid gives integer releases
    REQUIRE(std::abs(a - 42.0) <= 2.0);
  }
}

TEST_CASE("after fork the child does not replay the parent's buffered bits", "[sampler]") {
  // Without the fork guard, parent and child would both continue from the same 64 KiB buffer and draw the
  // same 4 x 63 bits below (probability 2^-252 otherwise).
  RandomBits bits(make_os_entropy_source());
  bits.bits(63);  // the buffer is now filled, and shared with any child forked from here
  int pipe_ends[2];
  REQUIRE(::pipe(pipe_ends) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  uint64_t drawn[4];
  for (auto& value : drawn) value = bits.bits(63);
  if (child == 0) {
    const ssize_t written = ::write(pipe_ends[1], drawn, sizeof drawn);
    ::_exit(written == static_cast<ssize_t>(sizeof drawn) ? 0 : 1);
  }
  uint64_t from_child[4];
  const ssize_t got = ::read(pipe_ends[0], from_child, sizeof from_child);
  int status = 0;
  ::waitpid(child, &status, 0);
  ::close(pipe_ends[0]);
  ::close(pipe_ends[1]);
  REQUIRE(got == static_cast<ssize_t>(sizeof from_child));
  CHECK_FALSE(std::equal(std::begin(drawn), std::end(drawn), std::begin(from_child)));
}
