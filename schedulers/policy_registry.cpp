#include "schedulers/policy_registry.h"

#include <algorithm>
#include <stdexcept>

#include "schedulers/policy_factories.h"

namespace tlmgpu::schedulers {

namespace {

struct ParamDescription {
  const char* key;
  const char* fallback;
  const char* meaning;
};

struct PolicyEntry {
  const char* name;
  const char* description;
  std::vector<ParamDescription> params;
  PolicyFactory factory;
};

// The table: one line per policy. Keep the descriptions to one line.
const std::vector<PolicyEntry>& policy_table() {
  static const std::vector<PolicyEntry> table = {
      {"srr", "strict round robin: the turn stays on one warp until it issues", {}, &make_srr_policy},
      {"lrr", "loose round robin: first ready warp after the last issued one",
       {{"probe", "0", "warps examined per cycle, 0 = all"}}, &make_lrr_policy},
      {"gto", "greedy then oldest (GTLO): last issued warp while ready, else oldest", {}, &make_gto_policy},
      {"gtlrr", "greedy then loose round robin: last issued warp, then the ones after it", {}, &make_gtlrr_policy},
      {"oldest", "oldest ready warp first (smallest dispatch age)", {}, &make_oldest_policy},
      {"two_level", "two-level (Narasiman): round robin over an active set; long-latency stalls swap out",
       {{"group", "8", "warps in the active set"}}, &make_two_level_policy},
      {"gty", "greedy then youngest: last issued warp while ready, else youngest", {}, &make_gty_policy},
      {"lfws", "long-operation first (seed 004): ready warps, long-memory heads first, greedy then oldest in each group",
       {}, &make_lfws_policy},
      {"lpi", "locality protected insertion: long-waiting warps spread among the others, oldest first", {},
       &make_lpi_policy},
      {"llos", "long-latency operation based: warps stalled before a long memory op first, round robin", {},
       &make_llos_policy},
      {"two_level_opt", "two-level with long-memory heads first inside the active set (seed 004 2-level opt)",
       {{"group", "8", "warps in the active set"}}, &make_two_level_opt_policy},
      {"pro", "progress aware (seed 000): CTA states and progress decide the order, re-sorted periodically",
       {{"threshold", "1000", "cycles between re-sorts of the noWait / finishNoWait CTAs"}}, &make_pro_policy},
      {"spin_backoff", "spin detection and back-off (seed 001) around a base policy",
       {{"base", "gto", "policy ordering the warps"},
        {"detector", "history", "history (setp operands) or table (backward branches)"},
        {"backoff", "1000", "cycles a spinning warp is left out"},
        {"window", "5", "setp operand pairs per history row"},
        {"confidence", "2", "table detector's threshold"}},
       &make_spin_backoff_policy},
      {"kaws",
       "kernel-aware (seed 002): base policy until the last CTA is dispatched, then least-progressed CTAs first; "
       "warp sharing between schedulers",
       {{"base", "gto", "policy before the switch: gto or lrr"},
        {"sharing", "on", "on: a scheduler with a free SP / SFU / MEM collector issues another's stalled warp"}},
       &make_kaws_policy},
      {"swas",
       "synchronized fetch and issue (seed 003): one scheduler for both stages, NOP-filled instruction queues",
       {{"policy", "gtlrr", "lrr, gtlrr or gtlo"}}, &make_swas_policy},
  };
  return table;
}

std::vector<const PolicyEntry*> sorted_entries() {
  std::vector<const PolicyEntry*> entries;
  for (const auto& e : policy_table()) entries.push_back(&e);
  std::sort(entries.begin(), entries.end(),
            [](const PolicyEntry* a, const PolicyEntry* b) { return std::string(a->name) < b->name; });
  return entries;
}

std::string known_names() {
  std::string names;
  for (const auto* e : sorted_entries()) names += (names.empty() ? "" : ", ") + std::string(e->name);
  return names;
}

bool is_name_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; }

bool is_identifier(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), is_name_char);
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

}  // namespace

PolicySpec parse_policy_spec(const std::string& raw) {
  const std::string text = trim(raw);
  const auto bad = [&](const std::string& why) {
    return std::invalid_argument("scheduler spec '" + raw + "': " + why +
                                 " (expected NAME or NAME:key=value,key=value)");
  };
  if (text.empty()) throw bad("empty");
  PolicySpec spec;
  const auto colon = text.find(':');
  spec.name = trim(text.substr(0, colon));
  if (!is_identifier(spec.name))
    throw bad("policy name '" + spec.name + "' must be lower-case letters, digits or '_'");
  if (colon == std::string::npos) return spec;

  const std::string rest = text.substr(colon + 1);
  if (trim(rest).empty()) throw bad("no parameters after ':'");
  size_t pos = 0;
  while (pos <= rest.size()) {
    const auto comma = rest.find(',', pos);
    const std::string item = trim(rest.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    if (item.empty()) throw bad("empty parameter");
    const auto eq = item.find('=');
    if (eq == std::string::npos) throw bad("parameter '" + item + "' has no '='");
    const std::string key = trim(item.substr(0, eq));
    const std::string value = trim(item.substr(eq + 1));
    if (!is_identifier(key)) throw bad("parameter name '" + key + "' must be lower-case letters, digits or '_'");
    if (value.empty()) throw bad("parameter '" + key + "' has no value");
    if (value.find_first_of("=:") != std::string::npos) throw bad("value of '" + key + "' contains '=' or ':'");
    if (!spec.params.emplace(key, value).second) throw bad("parameter '" + key + "' given twice");
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return spec;
}

std::vector<PolicyDescription> registered_policies() {
  std::vector<PolicyDescription> out;
  for (const auto* e : sorted_entries()) {
    std::string description = e->description;
    if (!e->params.empty()) {
      description += " [";
      for (size_t i = 0; i < e->params.size(); ++i)
        description += (i ? ", " : "") + std::string(e->params[i].key) + "=" + e->params[i].fallback + ": " +
                       e->params[i].meaning;
      description += "]";
    }
    out.push_back({e->name, description});
  }
  return out;
}

std::unique_ptr<WarpSchedulerPolicy> make_policy(const PolicySpec& spec, const PolicyContext& context) {
  const PolicyEntry* entry = nullptr;
  for (const auto& e : policy_table())
    if (spec.name == e.name) entry = &e;
  if (!entry)
    throw std::invalid_argument("unknown scheduler policy '" + spec.name + "' (known: " + known_names() + ")");
  for (const auto& param : spec.params) {
    const std::string& key = param.first;
    const bool accepted = std::any_of(entry->params.begin(), entry->params.end(),
                                      [&](const ParamDescription& p) { return key == p.key; });
    if (accepted) continue;
    std::string accepted_keys;
    for (const auto& p : entry->params) accepted_keys += (accepted_keys.empty() ? "" : ", ") + std::string(p.key);
    throw std::invalid_argument("scheduler policy '" + spec.name + "' has no parameter '" + key + "' (" +
                                (accepted_keys.empty() ? std::string("it takes no parameters")
                                                       : "it accepts: " + accepted_keys) +
                                ")");
  }
  return entry->factory(spec.params, context);
}

std::unique_ptr<WarpSchedulerPolicy> make_policy(const std::string& spec_text, const PolicyContext& context) {
  return make_policy(parse_policy_spec(spec_text), context);
}

uint64_t policy_param_uint(const std::string& policy, const PolicyParams& params, const std::string& key,
                           uint64_t fallback, uint64_t min, uint64_t max) {
  const auto it = params.find(key);
  if (it == params.end()) return fallback;
  const std::string& text = it->second;
  const auto bad = [&]() {
    return std::invalid_argument("scheduler policy '" + policy + "': parameter " + key + "=" + text +
                                 " must be an integer in [" + std::to_string(min) + ", " + std::to_string(max) +
                                 "]");
  };
  if (text.empty() || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    throw bad();
  if (text.size() > 18) throw bad();
  const uint64_t value = std::stoull(text);
  if (value < min || value > max) throw bad();
  return value;
}

}  // namespace tlmgpu::schedulers
