/*
 * bcryptprimitives.c: a stand-in for Windows's bcryptprimitives.dll in a
 * test Wine prefix. Go programs (1.22 and later) get their random bytes from
 * ProcessPrng in that DLL, which Windows 10 and later have and Wine 8 (the
 * wine64 of Debian 12) lacks; without it every Go program dies at start-up
 * ("bcryptprimitives.dll not found"). This implements ProcessPrng with
 * RtlGenRandom (advapi32's SystemFunction036), which Wine has. Used only by
 * scripts/wine/run.sh; never shipped.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T size) {
	while (size > 0) {
		ULONG n = size > 0x40000000 ? 0x40000000 : (ULONG)size;
		if (!SystemFunction036(data, n)) {
			return FALSE;
		}
		data += n;
		size -= n;
	}
	return TRUE;
}
