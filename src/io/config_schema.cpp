#include "io/config_schema.hpp"

namespace noiselearn::config_schema {

void require(bool condition, const std::string& key, const std::string& message) {
  if (!condition) throw InputError(fmt::format("{} {}", key, message));
}

void require_one_of(const std::string& value, const std::string& key, std::initializer_list<const char*> valid) {
  require_one_of(value, key, std::vector<std::string>(valid.begin(), valid.end()));
}

void require_one_of(const std::string& value, const std::string& key, const std::vector<std::string>& valid) {
  if (std::find(valid.begin(), valid.end(), value) != valid.end()) return;
  throw InputError(fmt::format("{} = '{}' is not valid{} (valid: {})", key, value, did_you_mean(value, valid),
                               fmt::join(valid, ", ")));
}

std::string grouped(int64_t value) {
  if (value == std::numeric_limits<int64_t>::max()) return "2^63 - 1";
  std::string digits = std::to_string(value < 0 ? -value : value), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return value < 0 ? "-" + out : out;
}

std::optional<int64_t> whole_number(const YAML::Node& node) {
  try {
    return node.as<int64_t>();
  } catch (const YAML::Exception&) {}
  const double value = node.as<double>();  // YAML::Exception if it is not a number at all
  // 2^63 itself is not an int64; every double below it that is whole is one.
  if (!std::isfinite(value) || value != std::floor(value) || std::abs(value) >= 9223372036854775808.0)
    return std::nullopt;
  return static_cast<int64_t>(value);
}

}  // namespace noiselearn::config_schema
