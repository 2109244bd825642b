package allocators

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
)

// torch-caching's options: its configuration and the PYTORCH_CUDA_ALLOC_CONF
// parser, upstream's CUDAAllocatorConfig (c10/cuda/CUDAAllocatorConfig.cpp
// at 001074d2).

// tcConfig is the allocator's configuration, PyTorch's defaults when zero
// values are filled by defaultTCConfig.
type tcConfig struct {
	maxSplit    int64 // math.MaxInt64: unlimited
	divisions   [tcIntervals]int64
	gcThreshold float64
	expandable  bool
}

// tcIntervals is kRoundUpPowerOfTwoIntervals: the size ranges of
// roundup_power2_divisions, powers of two from 1 MiB.
const tcIntervals = 16

func defaultTCConfig() tcConfig {
	return tcConfig{maxSplit: math.MaxInt64}
}

// parseAllocConf reads a PYTORCH_CUDA_ALLOC_CONF string as
// CUDAAllocatorConfig::parseArgs (c10/cuda/CUDAAllocatorConfig.cpp) does at
// 001074d2: tokens split at , : [ and ], spaces (and only spaces) dropped,
// `key:value` pairs separated by commas, numbers read as C++'s stoi, stoul
// and stod read them (leading whitespace skipped, the longest numeric prefix
// taken, the rest of the token ignored). The errors quote PyTorch's
// TORCH_CHECK messages; where PyTorch would instead throw a standard
// exception (a value that is no number, or out of range) ours says what was
// expected. Options that do not change where device memory goes
// (backend:native, release_lock_on_cudamalloc, the pinned-memory options)
// are checked as upstream checks them and ignored. Later PyTorch takes
// keys 001074d2 rejects (max_non_split_rounding_mb,
// pinned_use_background_threads and more) and reads some values
// differently; see torchCaching.
func parseAllocConf(s string) (tcConfig, error) {
	c := defaultTCConfig()
	var toks []string
	var buf strings.Builder
	for _, r := range s {
		switch r {
		case ',', ':', '[', ']':
			if buf.Len() > 0 {
				toks = append(toks, buf.String())
				buf.Reset()
			}
			toks = append(toks, string(r))
		case ' ':
		default:
			buf.WriteRune(r)
		}
	}
	if buf.Len() > 0 {
		toks = append(toks, buf.String())
	}
	p := confTokens(toks)
	for i := 0; i < len(toks); i++ {
		var err error
		switch key := toks[i]; key {
		case "max_split_size_mb":
			var v string
			if v, i, err = p.value(i, key); err == nil {
				c.maxSplit, err = maxSplitMB(v)
			}
		case "garbage_collection_threshold":
			var v string
			if v, i, err = p.value(i, key); err == nil {
				c.gcThreshold, err = gcThreshold(v)
			}
		case "roundup_power2_divisions":
			i, err = p.divisions(i, &c.divisions)
		case "backend":
			if err = p.consume(i+1, ":"); err != nil {
				break
			}
			if i += 2; i >= len(toks) {
				err = errors.New("Error parsing backend value")
			} else if toks[i] == "cudaMallocAsync" {
				err = errors.New("backend:cudaMallocAsync is the CUDA driver's allocator, not simulated: use backend:native")
			} else if toks[i] != "native" {
				err = errors.New("Unknown allocator backend, options are native and cudaMallocAsync")
			}
		case "expandable_segments", "release_lock_on_cudamalloc", "release_lock_on_hipmalloc":
			// Upstream reads the value without checking that one came.
			if err = p.consume(i+1, ":"); err == nil {
				i += 2
				name := key
				if key == "release_lock_on_hipmalloc" {
					name = "release_lock_on_cudamalloc"
				}
				var b bool
				if b, err = p.boolean(i, name); err == nil && key == "expandable_segments" {
					c.expandable = b
				}
			}
		case "pinned_use_cuda_host_register", "pinned_use_hip_host_register":
			const name = "pinned_use_cuda_host_register"
			if _, i, err = p.value(i, name); err == nil {
				_, err = p.boolean(i, name)
			}
		case "pinned_num_register_threads":
			var v string
			if v, i, err = p.value(i, key); err == nil {
				err = registerThreads(v)
			}
		default:
			err = fmt.Errorf("Unrecognized CachingAllocator option: %s", key)
		}
		if err != nil {
			return c, err
		}
		if i+1 < len(toks) {
			if err := p.consume(i+1, ","); err != nil {
				return c, err
			}
			i++
		}
	}
	return c, nil
}

// confTokens are the tokens of a PYTORCH_CUDA_ALLOC_CONF string.
type confTokens []string

// consume checks that token i is c, as upstream's consumeToken does.
func (p confTokens) consume(i int, c string) error {
	if i < len(p) && p[i] == c {
		return nil
	}
	return fmt.Errorf("Error parsing CachingAllocator settings, expected %s", c)
}

// value reads `key:VALUE` with key at i, returning the value and its index.
func (p confTokens) value(i int, key string) (string, int, error) {
	if err := p.consume(i+1, ":"); err != nil {
		return "", i, err
	}
	if i += 2; i >= len(p) {
		return "", i, fmt.Errorf("Error, expecting %s value", key)
	}
	return p[i], i, nil
}

// boolean reads token i, which must be True or False.
func (p confTokens) boolean(i int, key string) (bool, error) {
	if i < len(p) && (p[i] == "True" || p[i] == "False") {
		return p[i] == "True", nil
	}
	return false, fmt.Errorf("Expected a single True/False argument for %s", key)
}

// maxSplitMB reads max_split_size_mb. Upstream stores stoi's int in a
// size_t, so a negative value passes the check as a huge one and leaves
// every block splittable: no limit.
func maxSplitMB(v string) (int64, error) {
	n, err := cStoi(v, "max_split_size_mb")
	switch {
	case err != nil:
		return 0, err
	case n < 0:
		return math.MaxInt64, nil
	case n <= tcLargeBuffer>>20:
		return 0, fmt.Errorf("CachingAllocator option max_split_size_mb too small, must be > %d", tcLargeBuffer>>20)
	}
	return n << 20, nil
}

func gcThreshold(v string) (float64, error) {
	t, err := cStod(v, "garbage_collection_threshold")
	switch {
	case err != nil:
		return 0, err
	case !(t > 0): // NaN too
		return 0, errors.New("garbage_collect_threshold too small, set it 0.0~1.0")
	case t >= 1:
		return 0, errors.New("garbage_collect_threshold too big, set it 0.0~1.0")
	}
	return t, nil
}

// registerThreads checks pinned_num_register_threads: a power of two up to
// pinned_max_register_threads (128).
func registerThreads(v string) error {
	n, err := cStoi(v, "pinned_num_register_threads")
	switch {
	case err != nil:
		return err
	case !isPow2(uint64(n)):
		return errors.New("Number of register threads has to be power of 2")
	case n > 128:
		return errors.New("Number of register threads should be less than or equal to 128")
	}
	return nil
}

func isPow2(n uint64) bool { return n != 0 && n&(n-1) == 0 }

// divisions reads `roundup_power2_divisions:N` (every range) or
// `roundup_power2_divisions:[B:N,...,>:N]` with the key at toks[i], as
// upstream's parseRoundUpPower2Divisions does at 001074d2: boundary B in
// MiB, a power of two, sets its range and, for the first boundary, all
// below it; `>` sets the last boundary's range (range 0 before any) and
// every range after it; ranges between boundaries keep 0 (no power-of-two
// rounding). Upstream neither asks for the closing bracket nor looks past
// the end of the tokens before it reads the one after a value; ours
// reports the missing comma there. It returns the index of the last token
// read.
func (p confTokens) divisions(i int, d *[tcIntervals]int64) (int, error) {
	const key = "roundup_power2_divisions"
	if err := p.consume(i+1, ":"); err != nil {
		return i, err
	}
	if i += 2; i >= len(p) {
		return i, fmt.Errorf("Error, expecting %s value", key)
	}
	if p[i] != "[" {
		n, err := cStoi(p[i], key)
		if err != nil {
			return i, err
		}
		if !isPow2(uint64(n)) {
			return i, errors.New("For roundups, the divisons has to be power of 2")
		}
		for k := range d {
			d[k] = n
		}
		return i, nil
	}
	first, last := true, 0
	for i++; i < len(p) && p[i] != "]"; i++ {
		bound := p[i]
		if err := p.consume(i+1, ":"); err != nil {
			return i, err
		}
		if i += 2; i >= len(p) {
			return i, fmt.Errorf("Error parsing %s value", key)
		}
		n, err := cStoi(p[i], key)
		if err != nil {
			return i, err
		}
		if n != 0 && !isPow2(uint64(n)) {
			return i, errors.New("For roundups, the divisons has to be power of 2 or 0 to disable roundup")
		}
		if bound == ">" {
			for k := last; k < tcIntervals; k++ {
				d[k] = n
			}
		} else {
			b, err := cStoul(bound, key)
			if err != nil {
				return i, err
			}
			if !isPow2(b) {
				return i, errors.New("For roundups, the intervals have to be power of 2")
			}
			k := min(bits.Len64(b)-1, tcIntervals-1)
			if first {
				for j := 0; j < k; j++ {
					d[j] = n
				}
				first = false
			}
			d[k], last = n, k
		}
		if i+1 >= len(p) || p[i+1] != "]" {
			if err := p.consume(i+1, ","); err != nil {
				return i, err
			}
			i++
		}
	}
	return i, nil
}

// cNumber splits off what C's strtol family reads of s in base 10: leading
// whitespace, an optional sign and the digits after it.
func cNumber(s string) (neg bool, digits string) {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return neg, s[:n]
}

// cStoi reads v as std::stoi does: an int, or an error where stoi throws.
func cStoi(v, key string) (int64, error) {
	neg, digits := cNumber(v)
	if digits == "" {
		return 0, fmt.Errorf("%s: expected an integer, got %q", key, v)
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if neg {
		n = -n
	}
	if err != nil || n < math.MinInt32 || n > math.MaxInt32 {
		return 0, fmt.Errorf("%s: %q is out of the range of an int", key, v)
	}
	return n, nil
}

// cStoul reads v as std::stoul does: a negative value wraps around.
func cStoul(v, key string) (uint64, error) {
	neg, digits := cNumber(v)
	if digits == "" {
		return 0, fmt.Errorf("%s: expected an integer, got %q", key, v)
	}
	n, err := strconv.ParseUint(digits, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is out of the range of an unsigned long", key, v)
	}
	if neg {
		n = -n
	}
	return n, nil
}

// cStod reads v as std::stod does: the longest prefix that is a decimal
// number, inf, infinity or nan (hexadecimal floats are not read); a value
// too large or too small for a normal double is out of range.
func cStod(v, key string) (float64, error) {
	s := strings.TrimLeft(v, " \t\n\v\f\r")
	n := 0
	if n < len(s) && (s[n] == '+' || s[n] == '-') {
		n++
	}
	lower := strings.ToLower(s[n:])
	for _, w := range []string{"infinity", "inf", "nan"} {
		if strings.HasPrefix(lower, w) {
			f, _ := strconv.ParseFloat(s[:n+len(w)], 64)
			return f, nil
		}
	}
	digits, dot, nonzero := 0, false, false
	for ; n < len(s); n++ {
		if ch := s[n]; ch >= '0' && ch <= '9' {
			digits++
			nonzero = nonzero || ch != '0'
		} else if ch == '.' && !dot {
			dot = true
		} else {
			break
		}
	}
	if digits == 0 {
		return 0, fmt.Errorf("%s: expected a number, got %q", key, v)
	}
	if e := n; e < len(s) && (s[e] == 'e' || s[e] == 'E') {
		e++
		if e < len(s) && (s[e] == '+' || s[e] == '-') {
			e++
		}
		if e < len(s) && s[e] >= '0' && s[e] <= '9' {
			for e < len(s) && s[e] >= '0' && s[e] <= '9' {
				e++
			}
			n = e
		}
	}
	f, err := strconv.ParseFloat(s[:n], 64)
	if err != nil || nonzero && math.Abs(f) < 0x1p-1022 {
		return 0, fmt.Errorf("%s: %q is out of the range of a double", key, v)
	}
	return f, nil
}

// divisionsFor is roundup_power2_divisions for a request of size bytes.
func (c *tcConfig) divisionsFor(size int64) int64 {
	k := bits.Len64(uint64(size)) - 1 - 20
	return c.divisions[max(0, min(k, tcIntervals-1))]
}
