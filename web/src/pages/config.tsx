// stub
export default function Page() {
  return <h1>config</h1>;
}
