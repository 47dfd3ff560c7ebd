/**
 * Headers the compiler takes from the system, not from the project: the C standard library (C89 to C23), POSIX
 * (including every sys/ header), the C++ standard library, and the usual platform headers of glibc and Windows.
 */
const C_STD =
  'assert complex ctype errno fenv float inttypes iso646 limits locale math setjmp signal stdalign stdarg ' +
  'stdatomic stdbit stdbool stdckdint stddef stdint stdio stdlib stdnoreturn string tgmath threads time uchar ' +
  'wchar wctype';
const POSIX =
  'aio arpa/inet cpio dirent dlfcn fcntl fmtmsg fnmatch ftw glob grp iconv langinfo libgen monetary mqueue ndbm ' +
  'net/if netdb netinet/in netinet/tcp nl_types poll pthread pwd regex sched search semaphore spawn strings ' +
  'stropts syslog tar termios trace ulimit unistd utime utmpx wordexp';
const PLATFORM =
  'alloca byteswap endian err error execinfo features getopt malloc memory paths sysexits ucontext ' +
  'windows winsock2 ws2tcpip io direct process conio';
const CPP_STD =
  'algorithm any array atomic barrier bit bitset cassert ccomplex cctype cerrno cfenv cfloat charconv chrono ' +
  'cinttypes ciso646 climits clocale cmath codecvt compare complex concepts condition_variable coroutine csetjmp ' +
  'csignal cstdalign cstdarg cstdbool cstddef cstdint cstdio cstdlib cstring ctgmath ctime cuchar cwchar cwctype ' +
  'deque exception execution expected filesystem format forward_list fstream functional future generator ' +
  'initializer_list iomanip ios iosfwd iostream istream iterator latch limits list locale map mdspan memory ' +
  'memory_resource mutex new numbers numeric optional ostream print queue random ranges ratio regex ' +
  'scoped_allocator semaphore set shared_mutex source_location span spanstream sstream stack stacktrace ' +
  'stdexcept stdfloat stop_token streambuf string string_view strstream syncstream system_error thread tuple ' +
  'type_traits typeindex typeinfo unordered_map unordered_set utility valarray variant vector version';

const SYSTEM = new Set<string>([
  ...`${C_STD} ${POSIX} ${PLATFORM}`.split(' ').map((h) => `${h}.h`),
  ...CPP_STD.split(' '),
]);

export function isSystemHeader(spec: string): boolean {
  return SYSTEM.has(spec) || spec.startsWith('sys/');
}
