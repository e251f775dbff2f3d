#include "losses/soft_pld_fused.hpp"

#include "losses/planned_fft.hpp"

#include <cmath>
#include <limits>
#include <vector>

namespace noiselearn {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// Forward: pmf[slot_i] += a_i (1 - f_i), then pmf[slot_i + 1] += a_i f_i (two passes, the reference's scatter order),
// u_i = L_i / step, slot_i = floor(u_i) - first, f_i = u_i - floor(u_i); omega = sum of first over distinguishing
// outcomes. Backward: da_i = g[slot] (1 - f) + g[slot + 1] f, du_i = a_i (g[slot + 1] - g[slot]), dL_i = du_i / step,
// dlog first_i = a_i da_i + dL_i, dlog second_i = -dL_i; distinguishing: dlog first_i = a_i g_omega.
class SingleRelease : public torch::autograd::Function<SingleRelease> {
 public:
  // masses: e^{log first} from the caller (LogPair::first), or empty to compute it here.
  static variable_list forward(AutogradContext* ctx, const torch::Tensor& log_first, const torch::Tensor& log_second,
                               double step, int64_t first, int64_t size, const torch::Tensor& masses) {
    const int64_t N = log_first.size(0);
    const double* lf = log_first.data_ptr<double>();
    const double* ls = log_second.data_ptr<double>();
    const auto float64 = torch::TensorOptions().dtype(torch::kDouble);
    const torch::Tensor mass_t = masses.numel() == N ? masses.detach().contiguous() : log_first.detach().exp();
    const double* mass = mass_t.data_ptr<double>();
    torch::Tensor slot_t = torch::full({N}, int64_t{-1}, torch::TensorOptions().dtype(torch::kLong));
    torch::Tensor fraction_t = torch::zeros({N}, float64), pmf_t = torch::zeros({size}, float64);
    int64_t* slot = slot_t.data_ptr<int64_t>();
    double* fraction = fraction_t.data_ptr<double>();
    double* pmf = pmf_t.data_ptr<double>();
    double omega = 0.0;
    for (int64_t i = 0; i < N; ++i) {
      if (!std::isfinite(lf[i])) continue;
      if (!std::isfinite(ls[i])) {
        omega += mass[i];
        continue;
      }
      const double position = (lf[i] - ls[i]) / step, cell = std::floor(position);
      fraction[i] = position - cell;
      slot[i] = static_cast<int64_t>(cell - static_cast<double>(first));
      pmf[slot[i]] += mass[i] * (1.0 - fraction[i]);
    }
    for (int64_t i = 0; i < N; ++i)
      if (slot[i] >= 0) pmf[slot[i] + 1] += mass[i] * fraction[i];
    ctx->saved_data["mass"] = mass_t;
    ctx->saved_data["slot"] = slot_t;
    ctx->saved_data["fraction"] = fraction_t;
    ctx->saved_data["log_first"] = log_first.detach();
    ctx->saved_data["log_second"] = log_second.detach();
    ctx->saved_data["step"] = step;
    return {pmf_t, torch::full({}, omega, float64)};
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    const torch::Tensor mass_t = ctx->saved_data["mass"].toTensor(), slot_t = ctx->saved_data["slot"].toTensor();
    const torch::Tensor fraction_t = ctx->saved_data["fraction"].toTensor();
    const torch::Tensor log_first = ctx->saved_data["log_first"].toTensor(),
                        log_second = ctx->saved_data["log_second"].toTensor();
    const double step = ctx->saved_data["step"].toDouble();
    const int64_t N = mass_t.size(0);
    const auto float64 = torch::TensorOptions().dtype(torch::kDouble);
    const torch::Tensor g_t = grad_outputs[0].defined() ? grad_outputs[0].contiguous() : torch::Tensor();
    const double g_omega = grad_outputs[1].defined() ? grad_outputs[1].item<double>() : 0.0;
    const double* g = g_t.defined() ? g_t.data_ptr<double>() : nullptr;
    const double* mass = mass_t.data_ptr<double>();
    const int64_t* slot = slot_t.data_ptr<int64_t>();
    const double* fraction = fraction_t.data_ptr<double>();
    const double* lf = log_first.data_ptr<double>();
    const double* ls = log_second.data_ptr<double>();
    torch::Tensor grad_first_t = torch::zeros({N}, float64), grad_second_t = torch::zeros({N}, float64);
    double* grad_first = grad_first_t.data_ptr<double>();
    double* grad_second = grad_second_t.data_ptr<double>();
    for (int64_t i = 0; i < N; ++i) {
      if (slot[i] >= 0) {
        if (g == nullptr) continue;
        const double low = g[slot[i]], high = g[slot[i] + 1];
        const double d_mass = low * (1.0 - fraction[i]) + high * fraction[i];
        const double d_loss = mass[i] * (high - low) / step;
        grad_first[i] = d_mass * mass[i] + d_loss;
        grad_second[i] = -d_loss;
      } else if (std::isfinite(lf[i]) && !std::isfinite(ls[i])) {
        grad_first[i] = g_omega * mass[i];
      }
    }
    return {grad_first_t, grad_second_t, torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

// The tape of compose_soft_pld: values (masses, first, infinity) and the operations between them.
struct Tape {
  struct Value {
    torch::Tensor masses;  // detached
    int64_t first = 0;
    double infinity = 0.0;
  };
  struct Operation {
    enum Kind { kTruncate, kCompose } kind;
    int64_t in_a, in_b, out;
    int64_t low = 0, high = 0;                   // truncate: kept [low, high) of the input
    int64_t fft_size = 0;                        // compose: 0 for the direct convolution
    torch::Tensor spectrum_a, spectrum_b, full;  // compose: rfft of the inputs (FFT), the unclamped convolution
  };
  std::vector<Value> values;
  std::vector<Operation> operations;

  int64_t add(Value v) {
    values.push_back(std::move(v));
    return static_cast<int64_t>(values.size()) - 1;
  }

  // truncate_soft_pld: tails of at most tail_mass per side (negative masses count as 0); the bottom tail joins the
  // lowest kept point, the top tail the infinity mass.
  int64_t truncate(int64_t id, double tail_mass) {
    const Value& in = values[static_cast<size_t>(id)];
    const torch::Tensor m = in.masses.contiguous();
    const double* data = m.data_ptr<double>();
    int64_t low = 0, high = m.size(0);
    double low_tail = 0.0, high_tail = 0.0;
    while (low + 1 < high && low_tail + std::max(data[low], 0.0) <= tail_mass) low_tail += std::max(data[low++], 0.0);
    while (high - 1 > low && high_tail + std::max(data[high - 1], 0.0) <= tail_mass)
      high_tail += std::max(data[--high], 0.0);
    if (low == 0 && high == m.size(0)) return id;
    torch::Tensor kept = in.masses.narrow(0, low, high - low);
    if (low > 0)
      kept =
          torch::cat({kept.narrow(0, 0, 1) + in.masses.narrow(0, 0, low).sum(), kept.narrow(0, 1, kept.size(0) - 1)});
    double infinity = in.infinity;
    if (high < m.size(0)) infinity = infinity + in.masses.narrow(0, high, m.size(0) - high).sum().item<double>();
    const int64_t out = add({kept, in.first + low, infinity});
    operations.push_back({Operation::kTruncate, id, -1, out, low, high, 0, {}, {}, {}});
    return out;
  }

  // compose (soft_pld_loss.cpp): the clamped convolution, infinite when either side is, then truncated.
  int64_t compose(int64_t a, int64_t b, double tail_mass) {
    const Value& x = values[static_cast<size_t>(a)];
    const Value& y = values[static_cast<size_t>(b)];
    const int64_t length = x.masses.size(0) + y.masses.size(0) - 1;
    Operation op{Operation::kCompose, a, b, -1, 0, 0, 0, {}, {}, {}};
    if (x.masses.size(0) * y.masses.size(0) <= 65536) {
      op.full = torch::conv1d(x.masses.view({1, 1, -1}), y.masses.flip(0).view({1, 1, -1}), {}, 1, y.masses.size(0) - 1)
                    .view({-1});
    } else {
      op.fft_size = planned_fft_size(length);  // a power of two while the planned FFT is faster (planned_fft.hpp)
      op.spectrum_a = planned_rfft(x.masses, op.fft_size);
      op.spectrum_b = a == b ? op.spectrum_a : planned_rfft(y.masses, op.fft_size);
      op.full = planned_irfft(op.spectrum_a * op.spectrum_b, op.fft_size).narrow(0, 0, length);
    }
    const double finite_x = x.masses.sum().item<double>(), finite_y = y.masses.sum().item<double>();
    const double infinity = x.infinity * (finite_y + y.infinity) + finite_x * y.infinity;
    op.out = add({torch::clamp_min(op.full, 0.0), x.first + y.first, infinity});
    operations.push_back(op);
    return truncate(op.out, tail_mass);
  }
};

// dx[i] = sum_k g[k] y[k - i] for i < x_length: the correlation of the convolution's gradient with the other side.
torch::Tensor correlate(const torch::Tensor& g, const torch::Tensor& y, int64_t x_length,
                        const torch::Tensor& y_spectrum, int64_t fft_size) {
  if (fft_size == 0) return torch::conv1d(g.view({1, 1, -1}), y.view({1, 1, -1})).view({-1});
  // Cyclic on the forward's size S >= x + y - 1: the lags k - i in [-(x - 1), -1] wrap to [S - x + 1, S - 1], past
  // y's support, so the cyclic correlation is the linear one on [0, x).
  return planned_irfft(planned_rfft(g, fft_size) * y_spectrum.conj(), fft_size).narrow(0, 0, x_length);
}

class Composition : public torch::autograd::Function<Composition> {
 public:
  // Outputs: the composed masses, the infinity mass, and the first grid index (an integer tensor, no gradient).
  static variable_list forward(AutogradContext* ctx, const torch::Tensor& masses, const torch::Tensor& infinity,
                               int64_t first, int64_t compositions, double tail_mass) {
    Tape tape;
    int64_t power = tape.truncate(tape.add({masses.detach(), first, infinity.item<double>()}), tail_mass), result = -1;
    for (int64_t n = compositions; n > 0;) {
      if (n & 1) result = result >= 0 ? tape.compose(result, power, tail_mass) : power;
      n >>= 1;
      if (n > 0) power = tape.compose(power, power, tail_mass);
    }
    // The tape, as lists the context can hold.
    const torch::Tensor none = torch::empty({0}, masses.options());
    c10::List<torch::Tensor> value_masses, spectra_a, spectra_b, fulls;
    std::vector<double> value_infinity;
    std::vector<int64_t> operations;
    for (const Tape::Value& v : tape.values) {
      value_masses.push_back(v.masses);
      value_infinity.push_back(v.infinity);
    }
    for (const Tape::Operation& op : tape.operations) {
      operations.insert(operations.end(),
                        {static_cast<int64_t>(op.kind), op.in_a, op.in_b, op.out, op.low, op.high, op.fft_size});
      spectra_a.push_back(op.spectrum_a.defined() ? op.spectrum_a : none);
      spectra_b.push_back(op.spectrum_b.defined() ? op.spectrum_b : none);
      fulls.push_back(op.full.defined() ? op.full : none);
    }
    ctx->saved_data["masses"] = value_masses;
    ctx->saved_data["infinity"] = value_infinity;
    ctx->saved_data["operations"] = operations;
    ctx->saved_data["spectra_a"] = spectra_a;
    ctx->saved_data["spectra_b"] = spectra_b;
    ctx->saved_data["fulls"] = fulls;
    ctx->saved_data["result"] = result;
    const Tape::Value& out = tape.values[static_cast<size_t>(result)];
    return {out.masses.clone(), torch::full({}, out.infinity, masses.options()),
            torch::full({}, out.first, torch::TensorOptions().dtype(torch::kLong))};
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    const c10::List<torch::Tensor> masses = ctx->saved_data["masses"].toTensorList();
    const std::vector<double> infinity = ctx->saved_data["infinity"].toDoubleVector();
    const std::vector<int64_t> operations = ctx->saved_data["operations"].toIntVector();
    const c10::List<torch::Tensor> spectra_a = ctx->saved_data["spectra_a"].toTensorList();
    const c10::List<torch::Tensor> spectra_b = ctx->saved_data["spectra_b"].toTensorList();
    const c10::List<torch::Tensor> fulls = ctx->saved_data["fulls"].toTensorList();
    const int64_t result = ctx->saved_data["result"].toInt();
    const size_t values = masses.size();
    std::vector<torch::Tensor> grad(values);
    std::vector<double> grad_infinity(values, 0.0);
    grad[static_cast<size_t>(result)] =
        grad_outputs[0].defined() ? grad_outputs[0] : torch::zeros_like(masses.get(static_cast<size_t>(result)));
    grad_infinity[static_cast<size_t>(result)] = grad_outputs[1].defined() ? grad_outputs[1].item<double>() : 0.0;
    const auto accumulate = [&](int64_t id, const torch::Tensor& g, double g_inf) {
      grad[static_cast<size_t>(id)] = grad[static_cast<size_t>(id)].defined() ? grad[static_cast<size_t>(id)] + g : g;
      grad_infinity[static_cast<size_t>(id)] += g_inf;
    };
    constexpr size_t kFields = 7;
    for (size_t o = operations.size() / kFields; o-- > 0;) {
      const int64_t* op = operations.data() + o * kFields;
      const int64_t kind = op[0], in_a = op[1], in_b = op[2], out = op[3], low = op[4], high = op[5], fft_size = op[6];
      const torch::Tensor g_out = grad[static_cast<size_t>(out)];
      if (!g_out.defined()) continue;
      const double g_inf = grad_infinity[static_cast<size_t>(out)];
      const torch::Tensor a = masses.get(static_cast<size_t>(in_a));
      if (kind == Tape::Operation::kTruncate) {
        // kept = in[low, high), its first point plus in[0, low); infinity plus in[high, size).
        const int64_t size = a.size(0);
        torch::Tensor g_in = torch::empty({size}, g_out.options());
        g_in.narrow(0, low, high - low).copy_(g_out);
        if (low > 0) g_in.narrow(0, 0, low).fill_(g_out[0].item<double>());
        if (high < size) g_in.narrow(0, high, size - high).fill_(g_inf);
        accumulate(in_a, g_in, g_inf);
        continue;
      }
      // The clamped convolution: the gradient passes where full >= 0 (torch's rule for clamp_min); then
      // infinity = x_inf (F_y + y_inf) + F_x y_inf, F the finite masses' sums.
      const torch::Tensor b = masses.get(static_cast<size_t>(in_b));
      const torch::Tensor full = fulls.get(o);
      const torch::Tensor g_full = torch::where(full >= 0.0, g_out, torch::zeros_like(g_out));
      const double a_inf = infinity[static_cast<size_t>(in_a)], b_inf = infinity[static_cast<size_t>(in_b)];
      const torch::Tensor da = correlate(g_full, b, a.size(0), spectra_b.get(o), fft_size) + g_inf * b_inf;
      const double finite_a = a.sum().item<double>(), finite_b = b.sum().item<double>();
      if (in_a == in_b) {
        accumulate(in_a, 2.0 * da, 2.0 * g_inf * (finite_b + b_inf));
      } else {
        const torch::Tensor db = correlate(g_full, a, b.size(0), spectra_a.get(o), fft_size) + g_inf * a_inf;
        accumulate(in_a, da, g_inf * (finite_b + b_inf));
        accumulate(in_b, db, g_inf * (a_inf + finite_a));
      }
    }
    return {grad[0], torch::full({}, grad_infinity[0], grad[0].options()), torch::Tensor(), torch::Tensor(),
            torch::Tensor()};
  }
};

}  // namespace

std::optional<SoftPld> fused_soft_pld_single_release(const LogPair& pair, double step, int64_t max_points) {
  if (!is_cpu_float64(pair)) return std::nullopt;
  const torch::Tensor lf_t = pair.log_first.detach(), ls_t = pair.log_second.detach();
  const double* lf = lf_t.data_ptr<double>();
  const double* ls = ls_t.data_ptr<double>();
  double lowest = std::numeric_limits<double>::infinity(), highest = -lowest;
  for (int64_t i = 0; i < lf_t.size(0); ++i)
    if (std::isfinite(lf[i]) && std::isfinite(ls[i])) {
      lowest = std::min(lowest, lf[i] - ls[i]);
      highest = std::max(highest, lf[i] - ls[i]);
    }
  if (!(lowest <= highest)) return std::nullopt;
  if ((highest - lowest) / step + 3.0 > static_cast<double>(max_points)) return std::nullopt;
  const int64_t first = static_cast<int64_t>(std::floor(lowest / step)) - 1;
  const int64_t size = static_cast<int64_t>(std::floor(highest / step)) - first + 3;
  const bool masses =
      pair.first.defined() && is_cpu_float64_vector(pair.first) && pair.first.sizes() == pair.log_first.sizes();
  const variable_list out = SingleRelease::apply(pair.log_first, pair.log_second, step, first, size,
                                                 masses ? pair.first : torch::empty({0}, pair.log_first.options()));
  return SoftPld{out[0], first, out[1]};
}

SoftPld fused_compose_soft_pld(const SoftPld& single, int64_t compositions, double tail_mass) {
  const torch::Tensor infinity = single.infinity_mass.reshape({});
  const variable_list out = Composition::apply(single.masses, infinity, single.first, compositions, tail_mass);
  return {out[0], out[2].item<int64_t>(), out[1]};
}

}  // namespace noiselearn
