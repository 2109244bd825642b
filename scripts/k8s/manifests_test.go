// Package k8s holds the Kubernetes manifests of a sharded sweep; its test
// strict-decodes them into the Kubernetes API types and checks that they
// agree with each other, with the Dockerfile and with the config they ship.
// It is a module of its own so that membench does not depend on Kubernetes.
package k8s

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/kustomize/api/krusty"
	kusttypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// built runs kustomize on this folder, as kubectl apply -k does, and
// strict-decodes the sweep Job it outputs.
func built(t *testing.T) *batchv1.Job {
	t.Helper()
	res, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), ".")
	if err != nil {
		t.Fatalf("kustomize build: %v", err)
	}
	for _, r := range res.Resources() {
		if r.GetKind() != "Job" || r.GetName() != "membench-sweep" {
			continue
		}
		data, err := r.AsYAML()
		if err != nil {
			t.Fatal(err)
		}
		var j batchv1.Job
		if err := yaml.UnmarshalStrict(data, &j); err != nil {
			t.Fatalf("the built sweep Job: %v", err)
		}
		return &j
	}
	t.Fatal("kustomize build has no Job membench-sweep")
	return nil
}

// kustomization is kustomize's own Kustomization type.
type kustomization = kusttypes.Kustomization

// manifests are the decoded files of this folder, by file name.
type manifests struct {
	jobs  map[string]*batchv1.Job
	cms   map[string]*corev1.ConfigMap
	pvcs  map[string]*corev1.PersistentVolumeClaim
	kusto *kustomization
}

// decode strict-decodes one manifest into the type its kind names:
// unknown or duplicate fields, and kinds not expected here, are errors.
func decode(data []byte, m *manifests, file string) error {
	var tm struct {
		Kind string `json:"kind"`
	}
	if err := yaml.Unmarshal(data, &tm); err != nil {
		return err
	}
	var err error
	switch tm.Kind {
	case "Job":
		var j batchv1.Job
		err = yaml.UnmarshalStrict(data, &j)
		m.jobs[file] = &j
	case "ConfigMap":
		var c corev1.ConfigMap
		err = yaml.UnmarshalStrict(data, &c)
		m.cms[file] = &c
	case "PersistentVolumeClaim":
		var p corev1.PersistentVolumeClaim
		err = yaml.UnmarshalStrict(data, &p)
		m.pvcs[file] = &p
	case "Kustomization":
		var k kustomization
		err = yaml.UnmarshalStrict(data, &k)
		m.kusto = &k
	default:
		return &unexpectedKind{tm.Kind}
	}
	return err
}

type unexpectedKind struct{ kind string }

func (e *unexpectedKind) Error() string { return "unexpected kind " + strconv.Quote(e.kind) }

// load decodes every *.yaml file of this folder, one document per file.
func load(t *testing.T) *manifests {
	t.Helper()
	m := &manifests{jobs: map[string]*batchv1.Job{}, cms: map[string]*corev1.ConfigMap{}, pvcs: map[string]*corev1.PersistentVolumeClaim{}}
	files, err := filepath.Glob("*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests: %v", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte("\n---")) {
			t.Errorf("%s: one manifest per file, please", f)
		}
		if err := decode(data, m, f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	return m
}

// TestStrictDecodeRefuses checks that decoding is strict: a misspelt or
// duplicated field and an unknown kind fail.
func TestStrictDecodeRefuses(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"apiVersion: batch/v1\nkind: Job\nspec:\n  completion: 3\n", `unknown field "completion"`},
		{"apiVersion: batch/v1\nkind: Job\nspec:\n  completions: 3\n  completions: 4\n", `"completions" already set`},
		{"apiVersion: v1\nkind: Pod\n", `unexpected kind "Pod"`},
		{"apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresource: [a.yaml]\n", `unknown field "resource"`},
	} {
		m := &manifests{jobs: map[string]*batchv1.Job{}, cms: map[string]*corev1.ConfigMap{}, pvcs: map[string]*corev1.PersistentVolumeClaim{}}
		err := decode([]byte(tc.doc), m, "x.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("decode %q: error %v, want one containing %q", tc.doc, err, tc.want)
		}
	}
}

// TestManifests checks what the manifests must agree on.
func TestManifests(t *testing.T) {
	m := load(t)
	sweep, merge := m.jobs["membench-sweep-job.yaml"], m.jobs["membench-merge-job.yaml"]
	pvc, cm := m.pvcs["membench-out-pvc.yaml"], m.cms["membench-config.yaml"]
	if sweep == nil || merge == nil || pvc == nil || cm == nil || m.kusto == nil {
		t.Fatalf("want the sweep and merge Jobs, the PVC, the ConfigMap and the kustomization; have jobs %v, pvcs %v, configmaps %v, kustomization %v",
			keys(m.jobs), keys(m.pvcs), keys(m.cms), m.kusto != nil)
	}

	// The kustomization applies everything but the merge, which must wait.
	want := []string{"membench-config.yaml", "membench-out-pvc.yaml", "membench-sweep-job.yaml"}
	if got := slices.Sorted(slices.Values(m.kusto.Resources)); !slices.Equal(got, want) {
		t.Errorf("kustomization resources %v, want %v", got, want)
	}

	// The shared volume is ReadWriteMany and both Jobs mount it.
	if !slices.Contains(pvc.Spec.AccessModes, corev1.ReadWriteMany) {
		t.Errorf("PVC %s: access modes %v, want ReadWriteMany", pvc.Name, pvc.Spec.AccessModes)
	}

	var image string
	for file, j := range m.jobs {
		spec := j.Spec.Template.Spec
		if len(spec.Containers) != 1 {
			t.Fatalf("%s: %d containers, want 1", file, len(spec.Containers))
		}
		c := spec.Containers[0]
		// One image, with a tag that is not latest.
		if image == "" {
			image = c.Image
		}
		if c.Image != image {
			t.Errorf("%s: image %q, but another Job runs %q", file, c.Image, image)
		}
		if tag := imageTag(c.Image); tag == "" || tag == "latest" {
			t.Errorf("%s: image %q: want a pinned tag, not latest", file, c.Image)
		}
		// Failed cells are results; exit 2 fails the Job at once; retries
		// are few.
		cmd := strings.Join(append(slices.Clone(c.Command), c.Args...), " ")
		if !strings.Contains(cmd, "--allow-failed-cells") {
			t.Errorf("%s: the command lacks --allow-failed-cells: %s", file, cmd)
		}
		if spec.RestartPolicy != corev1.RestartPolicyNever {
			t.Errorf("%s: restartPolicy %q, want Never (a podFailurePolicy needs it)", file, spec.RestartPolicy)
		}
		if !failsOnExit2(j, c.Name) {
			t.Errorf("%s: want a podFailurePolicy rule FailJob on exit code 2 of container %s", file, c.Name)
		}
		retries := j.Spec.BackoffLimit
		if j.Spec.BackoffLimitPerIndex != nil {
			retries = j.Spec.BackoffLimitPerIndex
		}
		if retries == nil || *retries > 3 {
			t.Errorf("%s: want backoffLimit (or backoffLimitPerIndex) of at most 3", file)
		}
		// The output volume is the PVC.
		if !mounts(spec, "/out", func(v corev1.Volume) bool {
			return v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == pvc.Name
		}) {
			t.Errorf("%s: /out is not the volume claim %s", file, pvc.Name)
		}
	}

	// The shard count is in one place, completions: kustomize copies it
	// into parallelism and SHARDS.
	c := sweep.Spec.Template.Spec.Containers[0]
	if sweep.Spec.CompletionMode == nil || *sweep.Spec.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("sweep: want completionMode Indexed")
	}
	if sweep.Spec.Completions == nil || *sweep.Spec.Completions < 1 {
		t.Fatalf("sweep: want completions, the shard count")
	}
	n := int(*sweep.Spec.Completions)
	if env(c, "SHARDS") == strconv.Itoa(n) {
		t.Errorf("sweep: SHARDS repeats completions by hand; kustomization.yaml sets it")
	}
	b := built(t)
	if bc := b.Spec.Template.Spec.Containers[0]; env(bc, "SHARDS") != strconv.Itoa(n) {
		t.Errorf("built sweep: SHARDS is %q, want the %d completions", env(bc, "SHARDS"), n)
	}
	if p := b.Spec.Parallelism; p == nil || int(*p) != n {
		t.Errorf("built sweep: parallelism %s, want the %d completions", ptrString(p), n)
	}
	if args := strings.Join(c.Args, " "); !strings.Contains(args, `--shard "${JOB_COMPLETION_INDEX}/${SHARDS}"`) || !strings.Contains(args, "--resume") {
		t.Errorf("sweep: the command should run shard ${JOB_COMPLETION_INDEX}/${SHARDS} and resume a started one: %s", args)
	}

	// CONFIG names a key of the ConfigMap mounted at its folder, and that
	// key holds the repository's config.
	config := env(c, "CONFIG")
	dir, key := filepath.Split(config)
	if !mounts(sweep.Spec.Template.Spec, filepath.Clean(dir), func(v corev1.Volume) bool {
		return v.ConfigMap != nil && v.ConfigMap.Name == cm.Name
	}) {
		t.Errorf("sweep: CONFIG %s is not in a mount of the ConfigMap %s", config, cm.Name)
	}
	repoConfig, err := os.ReadFile("../configs/overnight-scaling.toml")
	if err != nil {
		t.Fatal(err)
	}
	if cm.Data[key] != string(repoConfig) {
		t.Errorf("ConfigMap %s: %s differs from scripts/configs/overnight-scaling.toml", cm.Name, key)
	}
}

func TestImageTag(t *testing.T) {
	for image, want := range map[string]string{
		"membench:1": "1", "membench": "", "registry:5000/membench": "", "registry:5000/x/membench:2.0": "2.0", "membench:latest": "latest",
	} {
		if got := imageTag(image); got != want {
			t.Errorf("imageTag(%q) = %q, want %q", image, got, want)
		}
	}
}

// TestDockerfilePinned checks that every base image of the Dockerfile has
// an exact tag (or digest), never latest, and that the binary is static.
func TestDockerfilePinned(t *testing.T) {
	data, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	if err := checkDockerfile(string(data)); err != "" {
		t.Error(err)
	}
	for _, tc := range []struct{ file, want string }{
		{"FROM golang AS build\nRUN CGO_ENABLED=0 go build\n", `FROM golang: want a pinned tag like name:1.2.3`},
		{"FROM golang:1.26.0 AS b\nRUN CGO_ENABLED=0 go build\nFROM alpine:latest\n", `FROM alpine:latest: want a pinned tag like name:1.2.3`},
		{"FROM alpine:3\nRUN CGO_ENABLED=0 go build\n", `FROM alpine:3: want a pinned tag like name:1.2.3`},
		{"FROM golang:1.26.0\nRUN go build\n", "want a static binary (CGO_ENABLED=0 go build)"},
		{"RUN CGO_ENABLED=0 go build\n", "no FROM line"},
	} {
		if got := checkDockerfile(tc.file); got != tc.want {
			t.Errorf("checkDockerfile(%q) = %q, want %q", tc.file, got, tc.want)
		}
	}
}

var (
	fromLine = regexp.MustCompile(`(?im)^FROM\s+(?:--platform=\S+\s+)?(\S+)`)
	// A pinned image names an exact version (two dots or more) or a digest;
	// a build stage by name (FROM build) is not an image.
	pinned = regexp.MustCompile(`^[^:@\s]+(:[0-9]+\.[0-9]+\.[0-9]+[^:@\s]*|@sha256:[0-9a-f]{64})$`)
)

// checkDockerfile returns what is wrong with a Dockerfile, or "".
func checkDockerfile(s string) string {
	froms := fromLine.FindAllStringSubmatch(s, -1)
	if len(froms) == 0 {
		return "no FROM line"
	}
	stages := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?im)^FROM\s+.*\s+AS\s+(\S+)`).FindAllStringSubmatch(s, -1) {
		stages[strings.ToLower(m[1])] = true
	}
	for _, f := range froms {
		if !stages[strings.ToLower(f[1])] && !pinned.MatchString(f[1]) {
			return "FROM " + f[1] + ": want a pinned tag like name:1.2.3"
		}
	}
	if !strings.Contains(s, "CGO_ENABLED=0 go build") {
		return "want a static binary (CGO_ENABLED=0 go build)"
	}
	return ""
}

func failsOnExit2(j *batchv1.Job, container string) bool {
	if j.Spec.PodFailurePolicy == nil {
		return false
	}
	for _, r := range j.Spec.PodFailurePolicy.Rules {
		e := r.OnExitCodes
		if r.Action == batchv1.PodFailurePolicyActionFailJob && e != nil && e.ContainerName != nil && *e.ContainerName == container &&
			e.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn && slices.Contains(e.Values, 2) {
			return true
		}
	}
	return false
}

// mounts reports whether the pod's container mounts at path a volume that
// ok accepts.
func mounts(spec corev1.PodSpec, path string, ok func(corev1.Volume) bool) bool {
	for _, vm := range spec.Containers[0].VolumeMounts {
		if vm.MountPath != path {
			continue
		}
		for _, v := range spec.Volumes {
			if v.Name == vm.Name && ok(v) {
				return true
			}
		}
	}
	return false
}

func env(c corev1.Container, name string) string {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
}

func keys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// imageTag is the tag of an image reference ("" without one); a registry's
// port (host:5000/name) is not a tag.
func imageTag(image string) string {
	i := strings.LastIndex(image, ":")
	if i < 0 || strings.Contains(image[i:], "/") {
		return ""
	}
	return image[i+1:]
}

func ptrString(p *int32) string {
	if p == nil {
		return "unset"
	}
	return strconv.Itoa(int(*p))
}
