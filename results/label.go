package results

import (
	"path/filepath"
	"regexp"
	"strings"
)

// registeredName matches the names of registered workloads, strategies and
// allocators; any other workload spec is a file path.
var registeredName = regexp.MustCompile(`^[a-z0-9-]+(/[a-z0-9-]+)*$`)

// shortKeys abbreviates the parameters every generator takes.
var shortKeys = map[string]string{"seed": "s"}

// ShortLabel returns the name figures and tables show for a workload or
// subject spec: the generator or model without its family
// (`synthetic/random-dag?n=100&seed=1` is `random-dag n=100 s=1`,
// `zoo/resnet-50` is `resnet-50`), a file by its base name, an exec:
// planner by the base names of its command's words, and parameters as
// space-separated key=value pairs.
func ShortLabel(spec string) string {
	if cmd, ok := strings.CutPrefix(spec, "exec:"); ok {
		words := strings.Fields(cmd)
		for i, w := range words {
			if !strings.HasPrefix(w, "-") {
				words[i] = filepath.Base(w)
			}
		}
		return strings.Join(words, " ")
	}
	name, query, hasQuery := strings.Cut(spec, "?")
	if !registeredName.MatchString(name) {
		return filepath.Base(spec)
	}
	if fam, rest, ok := strings.Cut(name, "/"); ok && (fam == "zoo" || fam == "synthetic") {
		name = rest
	}
	if !hasQuery || query == "" {
		return name
	}
	parts := []string{name}
	for _, kv := range strings.Split(query, "&") {
		k, v, _ := strings.Cut(kv, "=")
		if s, ok := shortKeys[k]; ok {
			k = s
		}
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, " ")
}

// ShortLabels returns the short labels of specs, in order; where two
// different specs would share a label, both keep their full spec, so no
// label is ambiguous.
func ShortLabels(specs []string) []string {
	byLabel := map[string]map[string]bool{}
	labels := make([]string, len(specs))
	for i, s := range specs {
		labels[i] = ShortLabel(s)
		if byLabel[labels[i]] == nil {
			byLabel[labels[i]] = map[string]bool{}
		}
		byLabel[labels[i]][s] = true
	}
	for i, s := range specs {
		if len(byLabel[labels[i]]) > 1 {
			labels[i] = s
		}
	}
	return labels
}

// IsFile reports whether a workload spec names a file rather than a
// registered workload.
func IsFile(spec string) bool {
	name, _, _ := strings.Cut(spec, "?")
	return !registeredName.MatchString(name)
}
