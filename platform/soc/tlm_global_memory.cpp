#include "platform/soc/tlm_global_memory.h"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace tlmgpu::platform::soc {

namespace {
bool overlaps(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1) { return a0 <= b1 && b0 <= a1; }

const char* status_name(tlm::tlm_response_status s) {
  switch (s) {
    case tlm::TLM_OK_RESPONSE: return "TLM_OK_RESPONSE";
    case tlm::TLM_INCOMPLETE_RESPONSE: return "a short debug transfer";
    case tlm::TLM_GENERIC_ERROR_RESPONSE: return "TLM_GENERIC_ERROR_RESPONSE";
    case tlm::TLM_ADDRESS_ERROR_RESPONSE: return "TLM_ADDRESS_ERROR_RESPONSE";
    case tlm::TLM_COMMAND_ERROR_RESPONSE: return "TLM_COMMAND_ERROR_RESPONSE";
    case tlm::TLM_BURST_ERROR_RESPONSE: return "TLM_BURST_ERROR_RESPONSE";
    case tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE: return "TLM_BYTE_ENABLE_ERROR_RESPONSE";
  }
  return "an unknown response";
}
}  // namespace

uint8_t* TlmGlobalMemory::translate(uint64_t addr, uint64_t bytes) {
  if (bytes == 0) return nullptr;
  const uint64_t last = addr + bytes - 1;
  if (last < addr) return nullptr;
  // The fast path: the region the previous access hit.
  if (last_region_ < granted_.size()) {
    const DmiRegion& r = granted_[last_region_];
    if (addr >= r.start && last <= r.end) return r.ptr + (addr - r.start);
  }
  return translate_slow(addr, last);
}

uint8_t* TlmGlobalMemory::translate_slow(uint64_t addr, uint64_t last) {
  if (uint8_t* p = dmi_pointer(addr, last)) return p;
  return stage(addr, last - addr + 1);
}

uint8_t* TlmGlobalMemory::dmi_pointer(uint64_t addr, uint64_t last) {
  for (size_t i = 0; i < granted_.size(); ++i) {
    const DmiRegion& r = granted_[i];
    if (addr >= r.start && last <= r.end) {
      last_region_ = i;
      return r.ptr + (addr - r.start);
    }
  }
  // Asked before for this address (granted elsewhere or refused): no new request.
  for (const DmiRegion& r : granted_)
    if (addr >= r.start && addr <= r.end) return nullptr;
  if (dmi_given_up_) return nullptr;
  for (const auto& [s, e] : refused_)
    if (addr >= s && addr <= e) return nullptr;
  tlm::tlm_generic_payload trans;
  trans.set_command(tlm::TLM_READ_COMMAND);
  trans.set_address(addr);
  trans.set_data_length(0);
  tlm::tlm_dmi dmi;
  ++dmi_requests_;
  const bool granted = socket_->get_direct_mem_ptr(trans, dmi);
  const uint64_t s = dmi.get_start_address(), e = dmi.get_end_address();
  // A grant must cover the address it was asked for; the executor also
  // writes through the pointer, so only read-write grants count.
  if (granted && dmi.is_read_write_allowed() && dmi.get_dmi_ptr() != nullptr && s <= addr && addr <= e) {
    granted_.push_back({s, e, dmi.get_dmi_ptr()});
    if (last <= e) {
      last_region_ = granted_.size() - 1;
      return dmi.get_dmi_ptr() + (addr - s);
    }
    return nullptr;
  }
  // Refused (or not usable): remember the range the target names, at least this address.
  if (s <= addr && addr <= e)
    refused_.emplace_back(s, e);
  else
    refused_.emplace_back(addr, addr);
  if (refused_.size() >= kMaxRefusals) dmi_given_up_ = true;
  return nullptr;
}

uint8_t* TlmGlobalMemory::stage(uint64_t addr, uint64_t bytes) {
  if (bytes > kMaxStagedBytes) return nullptr;
  const uint64_t last = addr + bytes - 1;
  // Lanes of one instruction touching the same bytes must share them (two
  // atomics on one word apply in turn).
  for (size_t i = 0; i < staged_count_; ++i) {
    Staged& s = staged_[i];
    const uint64_t s_last = s.addr + s.data.size() - 1;
    if (addr >= s.addr && last <= s_last) return s.data.data() + (addr - s.addr);
    // Partly overlapping copies cannot share one buffer: the executor's
    // naturally aligned accesses never do this; refuse rather than alias.
    if (overlaps(addr, last, s.addr, s_last)) return nullptr;
  }
  if (staged_count_ == staged_.size()) staged_.emplace_back();
  Staged& s = staged_[staged_count_];
  s.addr = addr;
  s.data.resize(bytes);
  if (!debug_transport(tlm::TLM_READ_COMMAND, addr, s.data.data(), bytes)) return nullptr;
  s.original = s.data;
  ++staged_count_;
  has_staged_ = true;
  return s.data.data();
}

bool TlmGlobalMemory::commit_staged(uint64_t* failed_address) {
  bool ok = true;
  for (size_t i = 0; i < staged_count_ && ok; ++i) {
    Staged& s = staged_[i];
    // Only the bytes the instruction changed go back: the rest of a staged
    // warp range may belong to other masters' data.
    const size_t n = s.data.size();
    for (size_t b = 0; b < n && ok;) {
      if (s.data[b] == s.original[b]) {
        ++b;
        continue;
      }
      size_t end = b + 1;
      while (end < n && s.data[end] != s.original[end]) ++end;
      if (!debug_transport(tlm::TLM_WRITE_COMMAND, s.addr + b, s.data.data() + b, end - b)) {
        ok = false;
        if (failed_address) *failed_address = s.addr + b;
      }
      b = end;
    }
  }
  staged_count_ = 0;
  has_staged_ = false;
  return ok;
}

void TlmGlobalMemory::discard_staged() {
  staged_count_ = 0;
  has_staged_ = false;
}

bool TlmGlobalMemory::debug_transport(tlm::tlm_command command, uint64_t addr, uint8_t* data, uint64_t bytes) {
  tlm::tlm_generic_payload trans;
  trans.set_command(command);
  trans.set_address(addr);
  trans.set_data_ptr(data);
  trans.set_data_length(unsigned(bytes));
  trans.set_streaming_width(unsigned(bytes));
  trans.set_byte_enable_ptr(nullptr);
  trans.set_dmi_allowed(false);
  trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  ++debug_transactions_;
  const unsigned done = socket_->transport_dbg(trans);
  // Debug transport reports success by its byte count; a target may also
  // set an error status.
  const tlm::tlm_response_status status = trans.get_response_status();
  if (done == bytes && (status == tlm::TLM_OK_RESPONSE || status == tlm::TLM_INCOMPLETE_RESPONSE)) return true;
  last_error_.valid = true;
  last_error_.write = command == tlm::TLM_WRITE_COMMAND;
  last_error_.address = addr;
  last_error_.bytes = bytes;
  last_error_.status = status == tlm::TLM_OK_RESPONSE ? tlm::TLM_INCOMPLETE_RESPONSE : status;
  return false;
}

namespace {
// A range that runs past the top of the 64-bit address space (a descriptor's
// address near 2^64, found by fuzz_mmio) is no memory: the access fails as an
// error response would, instead of wrapping around to address 0.
bool wraps(uint64_t addr, uint64_t bytes) { return addr + (bytes - 1) < addr; }
}  // namespace

bool TlmGlobalMemory::read(uint64_t addr, void* dst, uint64_t bytes) {
  if (bytes == 0) return true;
  if (wraps(addr, bytes)) return false;
  auto* out = static_cast<uint8_t*>(dst);
  // Host-side reads go in pieces no larger than a debug transaction's
  // 32-bit length; DMI where the whole piece is granted.
  constexpr uint64_t kPiece = 1u << 20;
  for (uint64_t done = 0; done < bytes;) {
    const uint64_t n = std::min(kPiece, bytes - done);
    if (const uint8_t* p = dmi_pointer(addr + done, addr + done + n - 1)) {
      std::memcpy(out + done, p, n);
    } else if (!debug_transport(tlm::TLM_READ_COMMAND, addr + done, out + done, n)) {
      return false;
    }
    done += n;
  }
  return true;
}

bool TlmGlobalMemory::write(uint64_t addr, const void* src, uint64_t bytes) {
  if (bytes == 0) return true;
  if (wraps(addr, bytes)) return false;
  const auto* in = static_cast<const uint8_t*>(src);
  constexpr uint64_t kPiece = 1u << 20;
  std::vector<uint8_t> buffer;
  for (uint64_t done = 0; done < bytes;) {
    const uint64_t n = std::min(kPiece, bytes - done);
    if (uint8_t* p = dmi_pointer(addr + done, addr + done + n - 1)) {
      std::memcpy(p, in + done, n);
    } else {
      buffer.assign(in + done, in + done + n);  // the payload's data pointer is not const
      if (!debug_transport(tlm::TLM_WRITE_COMMAND, addr + done, buffer.data(), n)) return false;
    }
    done += n;
  }
  return true;
}

bool TlmGlobalMemory::error_covers(uint64_t addr) const {
  return last_error_.valid && addr >= last_error_.address && addr - last_error_.address < last_error_.bytes;
}

std::string TlmGlobalMemory::describe(uint64_t addr) const {
  if (!error_covers(addr)) return {};
  std::ostringstream os;
  os << "SoC memory refused a " << (last_error_.write ? "write" : "read") << " of " << last_error_.bytes
     << " bytes at 0x" << std::hex << last_error_.address << std::dec << " ("
     << status_name(last_error_.status) << ")";
  return os.str();
}

void TlmGlobalMemory::invalidate_direct_mem_ptr(uint64_t start, uint64_t end) {
  granted_.erase(std::remove_if(granted_.begin(), granted_.end(),
                                [&](const DmiRegion& r) { return overlaps(r.start, r.end, start, end); }),
                 granted_.end());
  refused_.erase(std::remove_if(refused_.begin(), refused_.end(),
                                [&](const auto& r) { return overlaps(r.first, r.second, start, end); }),
                 refused_.end());
  dmi_given_up_ = false;  // the target's map changed: ask again
  last_region_ = 0;
}

void TlmGlobalMemory::invalidate_all() {
  granted_.clear();
  refused_.clear();
  dmi_given_up_ = false;
  last_region_ = 0;
}

}  // namespace tlmgpu::platform::soc
