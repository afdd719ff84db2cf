// PTX decode phase: each instruction's text becomes a ptx::Instruction
// (opcode, types, modifiers, operands with registers bound to slots), per
// function in scope order; then branch targets are resolved, reconvergence
// points computed and register needs estimated. Internal to the PTX front end.
#pragma once

#include <string_view>
#include <vector>

#include "model/ptx/ptx_link.h"
#include "model/ptx/ptx_syntax.h"

namespace tlmgpu::ptx {

/// Decodes every defined function of `tree` (laid out by lay_out_module) into
/// Module::code, filling each Function's PC range, register slots and labels;
/// `tokens` and `source` are the ones the tree was parsed from. Call sites go
/// to Module::calls and `calls`; problems to `log` (a bad instruction is
/// skipped).
void decode_functions(SyntaxTree& tree, const std::vector<Token>& tokens, std::string_view source, Module& module,
                      DiagnosticLog& log, CallGraph& calls);

/// True when `opcode` (the name before the first '.', "ld" of ld.global.u32)
/// has a decoder: the decoder's table and this answer cannot disagree.
bool is_decodable_opcode(std::string_view opcode);

}  // namespace tlmgpu::ptx
