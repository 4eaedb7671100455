#include "textflag.h"

// SEP16 sets each byte of acc to 0xff where the byte at off(SI) is a
// separator: a space (X8 holds 0x20s), or 0x09-0x0D, found as b-9 <= 4
// unsigned, min(b-9, 4) == b-9 (X9 holds 0x09s, X10 0x04s).
#define SEP16(off, acc, t1, t2) \
	MOVOU off(SI), acc; \
	MOVOU acc, t1; \
	PCMPEQB X8, acc; \
	PSUBB X9, t1; \
	MOVOU t1, t2; \
	PMINUB X10, t2; \
	PCMPEQB t1, t2; \
	POR t2, acc

// func sepMasksSSE2(dst *uint64, src *byte, n int)
//
// For each of n 64-byte stretches of src, a word of dst whose bit j is set
// when byte j is a separator. SSE2 only: every amd64 has it.
TEXT ·sepMasksSSE2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ $0x2020202020202020, AX
	MOVQ AX, X8
	PUNPCKLQDQ X8, X8
	MOVQ $0x0909090909090909, AX
	MOVQ AX, X9
	PUNPCKLQDQ X9, X9
	MOVQ $0x0404040404040404, AX
	MOVQ AX, X10
	PUNPCKLQDQ X10, X10
	TESTQ CX, CX
	JEQ done

loop:
	SEP16(0, X0, X1, X2)
	PMOVMSKB X0, AX
	SEP16(16, X3, X4, X5)
	PMOVMSKB X3, BX
	SEP16(32, X0, X1, X2)
	PMOVMSKB X0, DX
	SEP16(48, X3, X4, X5)
	PMOVMSKB X3, R8
	SHLQ $16, BX
	ORQ BX, AX
	SHLQ $32, DX
	ORQ DX, AX
	SHLQ $48, R8
	ORQ R8, AX
	MOVQ AX, 0(DI)
	ADDQ $64, SI
	ADDQ $8, DI
	DECQ CX
	JNE loop

done:
	RET
