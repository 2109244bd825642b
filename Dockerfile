# The image the Kubernetes manifests in scripts/k8s run: a static membench
# binary at /membench on a small base with a shell (the Job's command is a
# shell line). Build from the repository root:
#   docker build -t membench:1 .
# Base images are pinned to exact tags (scripts/k8s's test refuses :latest).
FROM golang:1.26.0 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# CGO off: a static binary that runs on any base.
RUN CGO_ENABLED=0 go build -trimpath -ldflags=-s -o /membench ./cmd/membench

FROM alpine:3.21.3
COPY --from=build /membench /membench
ENTRYPOINT ["/membench"]
