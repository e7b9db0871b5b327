import { BASE_IMAGE } from "../../../../test/support/environment-harness";
import { describeContainerRuntime } from "./container-runtime.contract";
import { createDockerRuntime } from "./docker-runtime";

// the product's base image on the real engine (the test setup builds it)
describeContainerRuntime("docker", () => ({ runtime: createDockerRuntime(), image: BASE_IMAGE }));
