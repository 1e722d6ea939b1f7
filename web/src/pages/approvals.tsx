// stub
export default function Page() {
  return <h1>approvals</h1>;
}
