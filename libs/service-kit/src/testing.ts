export { NEXT, TOKEN, WITH_TOKEN, opsApp } from './testing/ops-app';
